//! The page's inline style and script.

pub(super) const CSS: &str = r#"
:root { --proved: #1a7f37; --violated: #cf222e; --unknown: #9a6700; --holds-if: #8250df; --loop: #0550ae; --line: #d0d7de; }
body { font: 14px/1.4 system-ui, sans-serif; margin: 0; color: #1f2328; background: #fff; }
header { padding: 8px 18px; border-bottom: 1px solid var(--line); background: #f6f8fa;
         position: sticky; top: 0; z-index: 2; }
h1 { font-size: 18px; margin: 0 0 2px 0; }
h2 { font-size: 16px; margin: 18px 0 6px; }
h3 { display: inline; font-size: 14px; margin: 0; font-family: ui-monospace, monospace; }
main { padding: 0 18px 40px; }
.summary { margin: 0; }
.filters { margin: 4px 0 0; font-size: 13px; }
.filters label { margin-right: 10px; cursor: pointer; }
.filters .sep { display: inline-block; width: 1px; height: 14px; background: #8c959f; margin: 0 12px -2px 2px; }
.count.proved, .verdict-true, td.proved, .counts .proved, label.proved { color: var(--proved); }
.count.violated, .verdict-false, td.violated, .counts .violated, label.violated { color: var(--violated); }
.count.unknown, .verdict-unknown, td.unknown, .counts .unknown, label.unknown { color: var(--unknown); }
.count.holds-if, td.holds-if, .counts .holds-if, label.holds-if { color: var(--holds-if); }
td.zero { color: #afb8c1; }
.dim { color: #656d76; }
.error { color: var(--violated); margin: 8px 0; }
#overview { max-width: 1100px; }
table.totals, table.files { border-collapse: collapse; font-size: 13px; }
.totals th, .totals td, .files th, .files td { padding: 2px 10px; text-align: right; border-bottom: 1px solid #eaeef2; }
.totals th:first-child, .files td.file-name, .files th:first-child { text-align: left; }
.totals tfoot th, .totals tfoot td { font-weight: 700; border-top: 1px solid var(--line); }
.files .dir-row th { text-align: left; font-family: ui-monospace, monospace; color: #656d76; padding-top: 8px; }
.files .dir-row td { padding-top: 8px; font-weight: 600; }
.files td.file-name { font-family: ui-monospace, monospace; padding-left: 22px; }
.files .program-row th { text-align: left; padding-top: 10px; }
.bar { display: inline-flex; width: 160px; height: 10px; background: #eaeef2; border-radius: 3px; overflow: hidden; vertical-align: middle; }
.bar i { display: block; height: 100%; }
.bar i.p { background: var(--proved); }
.bar i.v { background: var(--violated); }
.bar i.u { background: #d4a72c; }
.bar i.h { background: var(--holds-if); }
ul.links { margin: 2px 0 8px; padding-left: 22px; font-size: 13px; }
ul.links a { font-family: ui-monospace, monospace; }
.kind { font-size: 11.5px; font-weight: 600; color: #57606a; border: 1px solid var(--line); border-radius: 4px; padding: 0 4px; }
details.reason-group summary { cursor: pointer; margin: 2px 0; }
details.reason-group .n { display: inline-block; min-width: 3.5em; text-align: right; font-weight: 700; color: var(--unknown); margin-right: 6px; }
details.file { margin: 10px 0; border: 1px solid var(--line); border-radius: 6px; }
details.file > summary { cursor: pointer; padding: 6px 10px; background: #f6f8fa; border-radius: 6px; }
details.file[open] > summary { border-bottom: 1px solid var(--line); border-radius: 6px 6px 0 0; }
details.file > p { margin: 4px 10px; }
.warnings, .unplaced { margin: 8px 0; }
.source { overflow: hidden; }
.line { display: grid; grid-template-columns: 52px minmax(0, 11fr) minmax(0, 9fr); border-left: 4px solid transparent; }
.run { display: grid; grid-template-columns: 52px minmax(0, 1fr); border-left: 4px solid transparent; }
.line:target { outline: 2px solid #bf8700; }
.line, details.file, .unplaced, h2 { scroll-margin-top: 90px; }
.ln { text-align: right; padding-right: 8px; color: #8c959f; text-decoration: none; margin: 0;
      font: 12px/20px ui-monospace, monospace; user-select: none; }
.code { margin: 0; font: 13px/20px ui-monospace, SFMono-Regular, Menlo, monospace; white-space: pre-wrap;
        overflow-wrap: anywhere; }
details.gap > summary { cursor: pointer; font-size: 12px; color: #57606a; background: #f6f8fa; padding: 1px 60px;
        border-top: 1px dashed var(--line); border-bottom: 1px dashed var(--line); }
.notes { padding: 1px 8px; font-size: 12.5px; border-left: 1px solid var(--line); }
.line-proved { border-left-color: var(--proved); background: #dafbe1; }
.line-violated { border-left-color: var(--violated); background: #ffebe9; }
.line-unknown { border-left-color: var(--unknown); background: #fff8c5; }
.line-holds-if { border-left-color: var(--holds-if); background: #fbefff; }
.line.muted { background: transparent; border-left-color: transparent; }
.line-loop:not(.line-proved):not(.line-violated):not(.line-unknown):not(.line-holds-if) { background: #ddf4ff; border-left-color: var(--loop); }
.line-step:not(.line-proved):not(.line-violated):not(.line-unknown):not(.line-holds-if):not(.line-loop) { background: #fff0ee; }
.note, .mk { margin: 2px 0; }
.mark { display: inline-block; font-weight: 700; color: #fff; border-radius: 10px; padding: 0 8px;
        font-size: 12px; line-height: 18px; }
.mark.proved { background: var(--proved); }
.mark.violated { background: var(--violated); }
.mark.unknown { background: var(--unknown); }
.mark.holds-if { background: var(--holds-if); }
.func { color: #656d76; font-family: ui-monospace, monospace; font-size: 12px; }
.ctx { color: #656d76; font-size: 12px; }
.reason { color: #1f2328; overflow-wrap: anywhere; }
details.more { display: inline; }
details.more summary { display: inline; cursor: pointer; color: #0969da; font-size: 12px; margin-left: 6px; }
.what { color: #57606a; font-size: 12px; }
details.more[open] { display: block; font-size: 12px; padding: 2px 0 4px 12px; }
ul.ctx-list { margin: 2px 0; padding-left: 18px; }
.loop-label { color: var(--loop); font-weight: 600; }
.disjunct { display: block; padding-left: 2.4em; text-indent: -2.4em; white-space: pre-wrap; }
.invariant { display: block; font: 12px/1.35 ui-monospace, monospace; color: #0a3069; overflow-wrap: anywhere; }
.steps { font: 12px/1.35 ui-monospace, monospace; color: #82071e; }
.step-no { font-weight: 700; }
details.inputs summary { cursor: pointer; color: #82071e; }
details.inputs ol { margin: 2px 0; padding-left: 22px; font: 12px/1.35 ui-monospace, monospace; }
.hide-v-violated main [data-verdict=violated], .hide-v-unknown main [data-verdict=unknown],
.hide-v-holds-if main [data-verdict=holds-if],
.hide-v-proved main [data-verdict=proved], .hide-k-assert main [data-kind=assert],
.hide-k-overflow main [data-kind=overflow], .hide-k-div main [data-kind=div],
.hide-k-shift main [data-kind=shift], .hide-k-bounds main [data-kind=bounds] { display: none; }
"#;

/// Numbers the unmarked lines, marks the page as rendered (tests read `data-marked-lines`
/// from the DOM), applies the filters (also from `?hide=proved,overflow` in the address),
/// opens the file and fold holding a link's target, and
/// lets `n`/`p` jump to the next or previous line with a finding.
pub(super) const JS: &str = r#"
(function () {
  var body = document.body;
  var each = function (selector, f) { Array.prototype.forEach.call(document.querySelectorAll(selector), f); };
  each('.run', function (run) {
    var code = run.querySelector('pre');
    var from = Number(run.getAttribute('data-from'));
    var n = code.textContent.split('\n').length - 1;
    var numbers = [];
    for (var i = 0; i < n; i++) numbers.push(from + i);
    var gutter = document.createElement('pre');
    gutter.className = 'ln';
    gutter.textContent = numbers.join('\n');
    run.insertBefore(gutter, code);
  });
  var marked = Array.prototype.slice.call(document.querySelectorAll('.line-proved, .line-violated, .line-holds-if, .line-unknown'));
  body.setAttribute('data-marked-lines', String(marked.length));
  var form = document.getElementById('filters');
  var apply = function () {
    var hidden = {};
    Array.prototype.forEach.call(form.querySelectorAll('input'), function (box) {
      var v = box.getAttribute('data-verdict'), k = box.getAttribute('data-kind');
      var name = v ? 'hide-v-' + v : 'hide-k-' + k;
      body.classList.toggle(name, !box.checked);
      hidden[v ? 'v' + v : 'k' + k] = !box.checked;
    });
    marked.forEach(function (line) {
      var shown = Array.prototype.some.call(line.querySelectorAll('.mk'), function (m) {
        return !hidden['v' + m.getAttribute('data-verdict')] && !hidden['k' + m.getAttribute('data-kind')];
      });
      line.classList.toggle('muted', !shown);
    });
  };
  if (form) {
    form.addEventListener('change', apply);
    // `?hide=proved,overflow` unticks those boxes: a filtered view can be linked.
    var hide = /[?&]hide=([^&#]*)/.exec(location.search);
    if (hide) {
      decodeURIComponent(hide[1]).split(',').forEach(function (name) {
        Array.prototype.forEach.call(form.querySelectorAll('input'), function (box) {
          if (box.getAttribute('data-verdict') === name || box.getAttribute('data-kind') === name) box.checked = false;
        });
      });
      apply();
    }
  }
  var reveal = function () {
    var id = decodeURIComponent(location.hash.slice(1));
    var target = id && document.getElementById(id);
    if (!target) return;
    for (var d = target; d; d = d.parentElement) if (d.tagName === 'DETAILS') d.open = true;
    target.scrollIntoView({ block: 'center' });
  };
  window.addEventListener('hashchange', reveal);
  reveal();
  var findings = Array.prototype.slice.call(document.querySelectorAll('.line-violated, .line-holds-if, .line-unknown'));
  var at = -1;
  document.addEventListener('keydown', function (e) {
    if (!findings.length || (e.key !== 'n' && e.key !== 'p') || e.target.tagName === 'INPUT') return;
    at = (at + (e.key === 'n' ? 1 : findings.length - 1)) % findings.length;
    location.hash = findings[at].id;
  });
})();
"#;
