#!/usr/bin/env python3
"""Differential fuzzing of the polynomial stage: random nla-like loop programs over small
bounded inputs; ground truth by native enumeration of every input (UBSan traps: programs
with UB are rejected); assertions are polynomial relations that hold on every execution
(found by exact linear algebra over the recorded final states) and perturbations of them
that some execution violates. A `proved` on a violated assertion is WRONG.

One assertion runs per execution (chosen by an input), so each is judged on its own.
Programs: two or three inputs in a small range, a counted loop (guards `c < k`, `c <= k`,
conjunctions and disjunctions), polynomial updates, branches on parities, equalities and
disjunctions, exact halvings after a parity test, a first loop that never runs (a head
without template variables, csmith 43046), a reducing loop after it; long long, int,
unsigned int and unsigned short variables. Needs gcc with UBSan.

usage: scripts/polyfuzz.py ANALYZER SEED COUNT OUTDIR [extra check flags...]
(seeds 1000-1149 with --timeout 4 gave 127 judged programs, 732 assertions, 115 true
ones proved, 0 wrong)
"""
import itertools, json, os, random, re, subprocess, sys
from fractions import Fraction

RUNTIME = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "runtime")


def gen_program(rnd):
    n_in = rnd.choice([1, 2, 2, 3])
    ins = [f"a{i}" for i in range(n_in)]
    lo = rnd.choice([-6, -3, 0, 0, 1])
    hi = rnd.choice([5, 8, 10])
    ty = rnd.choice(["long long", "long long", "int", "unsigned int", "unsigned short"])
    vs = ["x", "y", "z"][: rnd.choice([2, 3])]
    c = "c"
    inits = {}
    for v in vs:
        inits[v] = rnd.choice(["0", "1", "0", ins[0], ins[-1], "2", f"{ins[0]} * {ins[-1]}"])
    allv = vs + [c]

    def term():
        k = rnd.choice(["1", "1", "2", "3"])
        parts = [rnd.choice(allv + ins)]
        if rnd.random() < 0.5:
            parts.append(rnd.choice(allv + ins))
        return " * ".join([k] + parts) if k != "1" else " * ".join(parts)

    def update(v):
        r = rnd.random()
        if r < 0.45:
            return f"{v} = {v} + {term()};"
        if r < 0.6:
            return f"{v} = {v} + {rnd.choice(['1', '2', ins[0]])};"
        if r < 0.7:
            return f"{v} = {v} - {rnd.choice(['1', vs[0], c])};"
        if r < 0.8:
            return f"{v} = {v} * {rnd.choice(['2', ins[0]])};"
        if r < 0.9:
            return f"{v} = {rnd.choice(vs)};"
        return f"{v} = {v} + {rnd.choice(vs)} * {rnd.choice(vs)};"

    bound = rnd.choice(ins)
    guard = rnd.choice([
        f"{c} < {bound}", f"{c} <= {bound}", f"{c} < {bound} && {vs[0]} < 50",
        f"{c} != {bound} && {c} < 12", f"{c} < {bound} || {c} < 2",
    ])
    body = []
    branch = rnd.random()
    if branch < 0.3:
        cond = rnd.choice([f"{c} % 2 == 0", f"{vs[0]} % 2 == 1", f"{c} == {ins[-1]}",
                           f"{vs[-1]} == {ins[0]}", f"{c} % 3 != 1", f"{vs[0]} > {c} || {c} == 2",
                           f"{vs[0]} > {c} && {c} != 2"])
        a = [update(rnd.choice(vs)) for _ in range(rnd.choice([1, 2]))]
        b = [update(rnd.choice(vs)) for _ in range(rnd.choice([1, 2]))]
        body.append(f"if ({cond}) {{ {' '.join(a)} }} else {{ {' '.join(b)} }}")
    elif branch < 0.45:
        # an exact halving after a parity test, on a possibly negative value
        v = rnd.choice(vs)
        w = rnd.choice([x for x in vs if x != v] or vs)
        body.append(f"if ({v} % 2 == 0) {{ {v} = {v} / 2; {w} = 2 * {w}; }} else {{ {v} = {v} - 1; {w} = {w} + 1; }}")
    else:
        for _ in range(rnd.choice([1, 2, 3])):
            body.append(update(rnd.choice(vs)))
    body.append(f"{c} = {c} + 1;")
    pre = ""
    if rnd.random() < 0.25:
        # a first loop that never runs (a head without template variables)
        pre = f"  for (unsigned int i = 0; i >= 11u; i++) {{ {vs[0]} = {vs[0]} + 1; }}\n"
    post = ""
    if rnd.random() < 0.2:
        post = f"  while ({vs[-1]} > 100) {{ {vs[-1]} = {vs[-1]} - 100; }}\n"
    decl_in = "".join(f"  int {a} = polyfocus_nondet_int();\n" for a in ins)
    assume = " && ".join(f"{a} >= {lo} && {a} <= {hi}" for a in ins)
    decl_v = "".join(f"  {ty} {v} = {inits[v]};\n" for v in vs)
    text = (
        f"{decl_in}  polyfocus_assume({assume});\n{decl_v}  {ty} {c} = 0;\n{pre}"
        f"  while ({guard}) {{\n    " + "\n    ".join(body) + "\n  }\n" + post
    )
    return ins, lo, hi, ty, allv, text


def native(text, ins, lo, hi, allv, ty, work):
    fmt = " ".join(["%lld"] * len(allv + ins))
    args = ", ".join(f"(long long)({v})" for v in allv + ins)
    # assume -> return
    lines = []
    for ln in text.split("\n"):
        if "polyfocus_assume(" in ln:
            cond = ln.strip()[len("polyfocus_assume("):-2]
            lines.append(f"  if (!({cond})) return;")
        elif "polyfocus_nondet_int()" in ln:
            name = ln.split()[1]
            lines.append(f"  int {name} = in_{name};")
        else:
            lines.append(ln)
    params = ", ".join(f"int in_{a}" for a in ins)
    loops = "".join(f"for (int in_{a} = {lo - 1}; in_{a} <= {hi + 1}; in_{a}++) " for a in ins)
    call = ", ".join(f"in_{a}" for a in ins)
    src = (
        "#include <stdio.h>\n"
        f"static void body({params}) {{\n" + "\n".join(lines) +
        f"\n  printf(\"{fmt}\\n\", {args});\n}}\n"
        f"int main(void) {{ {loops} body({call}); return 0; }}\n"
    )
    c = os.path.join(work, "native.c")
    exe = os.path.join(work, "native")
    open(c, "w").write(src)
    r = subprocess.run(["gcc", "-O0", "-w", "-fsanitize=undefined", "-fno-sanitize-recover=undefined",
                        "-o", exe, c], capture_output=True, text=True)
    if r.returncode != 0:
        return None, "compile: " + r.stderr[:300]
    try:
        r = subprocess.run([exe], capture_output=True, text=True, timeout=20)
    except subprocess.TimeoutExpired:
        return None, "native timeout"
    if r.returncode != 0:
        return None, "UB or crash"
    rows = [tuple(int(x) for x in l.split()) for l in r.stdout.split("\n") if l.strip()]
    return rows, None


def monomials(names, degree):
    out = []
    for d in range(0, degree + 1):
        for combo in itertools.combinations_with_replacement(range(len(names)), d):
            out.append(combo)
    return out


def evalm(m, row):
    p = 1
    for i in m:
        p *= row[i]
    return p


def nullspace(rows, monos):
    # exact Gaussian elimination over Q: relations sum c_m * m(row) == 0 on every row
    mat = [[Fraction(evalm(m, r)) for m in monos] for r in set(rows)]
    ncol = len(monos)
    piv = []
    rix = 0
    for col in range(ncol):
        p = next((i for i in range(rix, len(mat)) if mat[i][col] != 0), None)
        if p is None:
            continue
        mat[rix], mat[p] = mat[p], mat[rix]
        pv = mat[rix][col]
        mat[rix] = [x / pv for x in mat[rix]]
        for i in range(len(mat)):
            if i != rix and mat[i][col] != 0:
                f = mat[i][col]
                mat[i] = [a - f * b for a, b in zip(mat[i], mat[rix])]
        piv.append(col)
        rix += 1
        if rix == len(mat):
            break
    free = [c for c in range(ncol) if c not in piv]
    basis = []
    for f in free:
        v = [Fraction(0)] * ncol
        v[f] = Fraction(1)
        for i, pc in enumerate(piv):
            v[pc] = -mat[i][f]
        # integer coefficients
        den = 1
        for x in v:
            den = den * x.denominator // __import__("math").gcd(den, x.denominator)
        basis.append([int(x * den) for x in v])
    return basis


def cexpr(coefs, monos, names, ty):
    terms = []
    for k, m in zip(coefs, monos):
        if k == 0:
            continue
        factors = [f"(long long){names[i]}" for i in m]
        terms.append(" * ".join([f"{k}LL"] + factors))
    return " + ".join(terms) if terms else "0LL"


def holds(coefs, monos, rows):
    return all(sum(k * evalm(m, r) for k, m in zip(coefs, monos)) == 0 for r in rows)


def main():
    analyzer, seed, count, outdir = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
    extra = sys.argv[5:]
    os.makedirs(outdir, exist_ok=True)
    tot = {"programs": 0, "rejected": 0, "assertions": 0, "proved_true": 0, "unknown": 0,
           "violated": 0, "wrong": 0, "true": 0, "false": 0}
    for k in range(count):
        s = seed + k
        rnd = random.Random(s)
        ins, lo, hi, ty, allv, text = gen_program(rnd)
        work = os.path.join(outdir, f"p{s}")
        os.makedirs(work, exist_ok=True)
        rows, err = native(text, ins, lo, hi, allv, ty, work)
        if rows is not None and any(abs(x) > (1 << 24) for row in rows for x in row):
            rows = None
        if rows is None or len(rows) < 3:
            tot["rejected"] += 1
            continue
        names = allv + ins
        # the values as C reads them after the loop; unsigned values print as long long of
        # the unsigned reading
        monos = monomials(names, 2)
        rels = [r for r in nullspace(rows, monos) if max(abs(x) for x in r) <= 1024 and any(r[i] for i, m in enumerate(monos) if any(names[j] in allv for j in m))]
        rnd.shuffle(rels)
        asserts = []
        for r in rels[:2]:
            asserts.append((r, True))
            bad = list(r)
            bad[0] += rnd.choice([1, -1])
            asserts.append((bad, holds(bad, monos, rows)))
        # relations the exit guard needs (products with the bound), picked at random
        for _ in range(2):
            coefs = [0] * len(monos)
            for i in rnd.sample(range(len(monos)), 3):
                coefs[i] = rnd.choice([-2, -1, 1, 2])
            asserts.append((coefs, holds(coefs, monos, rows)))
        # One assertion per execution (chosen by an input): each is judged on its own.
        asserts = [(c, holds(c, monos, rows)) for c, _ in asserts]
        lines = ["#include \"polyfocus.h\"", "int main(void) {"] + text.rstrip("\n").split("\n")
        lines.append("  int w = polyfocus_nondet_int();")
        first = len(lines) + 1
        for coefs, truth in asserts:
            lines.append(f"  if (w == {len(lines) - first + 1}) polyfocus_assert({cexpr(coefs, monos, names, ty)} == 0LL); // {'holds' if truth else 'fails'}")
        lines += ["  return 0;", "}"]
        prog = os.path.join(work, "prog.c")
        open(prog, "w").write("\n".join(lines) + "\n")
        tot["programs"] += 1
        try:
            r = subprocess.run([analyzer, "check", prog, "-I", RUNTIME, "--timeout", "4"] + extra,
                               capture_output=True, text=True, timeout=60)
        except subprocess.TimeoutExpired:
            print(f"seed {s}: analyzer killed at 60 s", flush=True)
            continue
        verdicts = {}
        for l in r.stdout.split("\n"):
            mm = re.match(r".*prog\.c:(\d+):\d+: (\w+)", l)
            if mm:
                verdicts[int(mm.group(1))] = mm.group(2)
        for i, (coefs, truth) in enumerate(asserts):
            line = first + i
            v = verdicts.get(line, "missing")
            tot["assertions"] += 1
            tot["true" if truth else "false"] += 1
            if v == "proved" and not truth:
                tot["wrong"] += 1
                print(f"WRONG seed {s} line {line}: proved but fails natively ({work})", flush=True)
            elif v == "violated" and truth:
                tot["wrong"] += 1
                print(f"WRONG seed {s} line {line}: violated but holds natively ({work})", flush=True)
            elif v == "proved":
                tot["proved_true"] += 1
            elif v == "violated":
                tot["violated"] += 1
            else:
                tot["unknown"] += 1
        print(f"seed {s}: {len(asserts)} assertions, {sum(1 for x in verdicts.values() if x == 'proved')} proved", flush=True)
    print(json.dumps(tot), flush=True)


if __name__ == "__main__":
    main()
