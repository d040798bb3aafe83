//! Reads the text form of [`print`](super::print) back into [`Function`]s.
//!
//! Both forms are accepted. The exact form (`{:#}`) gives back the function that was
//! printed. The readable form (`{}`, what `polyfocus ir` shows, and what `.pf` test files
//! are written in) lacks value names, source files and columns: values are named after
//! their ids, locations have an empty file, and the types of phi destinations are those of
//! the operands moved into them. Lines that start with `;` are comments.

use std::fmt;

use super::*;

/// Why a text is not a function, with its 1-based line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    /// The line of the text (0 when the error concerns the whole function).
    pub line: usize,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}

impl std::error::Error for ParseError {}

/// Parses a text holding exactly one function.
pub fn parse(text: &str) -> Result<Function, ParseError> {
    let mut funcs = parse_functions(text)?;
    match funcs.len() {
        1 => Ok(funcs.remove(0)),
        n => Err(ParseError {
            line: 0,
            message: format!("expected one function, found {n}"),
        }),
    }
}

/// Parses every function of a text, in order.
pub fn parse_functions(text: &str) -> Result<Vec<Function>, ParseError> {
    let lines: Vec<(usize, &str)> = text
        .lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l.trim()))
        .filter(|(_, l)| !l.is_empty() && !l.starts_with(';'))
        .collect();
    let mut res = Vec::new();
    let mut start = 0;
    while start < lines.len() {
        let end = (start + 1..lines.len())
            .find(|&i| lines[i].1.starts_with("function "))
            .unwrap_or(lines.len());
        res.push(FunctionParser::default().parse(&lines[start..end])?);
        start = end;
    }
    Ok(res)
}

/// A block as read, before operands are typed.
struct RawBlock<'t> {
    name: String,
    /// Instruction lines (already split from their location).
    insts: Vec<(usize, &'t str, Option<SourceLoc>)>,
    term: Option<(usize, &'t str, Option<SourceLoc>)>,
}

#[derive(Default)]
struct FunctionParser {
    /// Type, name and source name of each value, as far as known.
    types: Vec<Option<Ty>>,
    names: Vec<Option<String>>,
    sources: Vec<Option<String>>,
    /// Whether the text has `value` lines (the exact form).
    exact: bool,
}

impl FunctionParser {
    fn parse(mut self, lines: &[(usize, &str)]) -> Result<Function, ParseError> {
        let (header_line, header) = lines[0];
        let err = |line: usize, message: String| ParseError { line, message };
        let mut c = Cursor::new(header, header_line);
        c.expect("function ")?;
        let name = c.take_until('(')?.trim().to_string();
        c.expect("(")?;
        let mut params = Vec::new();
        while !c.eat(")") {
            if !params.is_empty() {
                c.expect(",")?;
            }
            let v = c.value_id()?;
            c.expect(":")?;
            let ty = c.ty()?;
            self.set_type(v, ty, header_line)?;
            params.push(v);
        }
        c.expect("entry")?;
        let entry = c.block_id()?;
        let loc = c.loc_suffix()?;
        c.end()?;
        let mut blocks: Vec<RawBlock> = Vec::new();
        let mut bases = Vec::new();
        for &(n, line) in &lines[1..] {
            let mut c = Cursor::new(line, n);
            if c.eat("base ") {
                let id = BaseId(c.prefixed_id("m")?);
                if id.index() != bases.len() {
                    return Err(err(n, format!("expected m{}, found {id}", bases.len())));
                }
                c.expect(":")?;
                let kind = match c.word()?.as_str() {
                    "local" => BaseKind::Local,
                    "global" => BaseKind::Global,
                    "constant" => BaseKind::Constant,
                    "pointee" => BaseKind::Pointee,
                    other => return Err(err(n, format!("unknown kind of base `{other}`"))),
                };
                let name = c.string()?;
                c.end()?;
                bases.push(BaseInfo {
                    kind,
                    name,
                    size: ObjectSize::Unknown,
                });
            } else if c.eat("value ") {
                self.exact = true;
                let v = c.value_id()?;
                c.expect(":")?;
                let ty = c.ty()?;
                let name = c.string()?;
                let source = if c.at_end() { None } else { Some(c.string()?) };
                c.end()?;
                self.set_type(v, ty, n)?;
                self.slot(v);
                self.names[v.index()] = Some(name);
                self.sources[v.index()] = source;
            } else if let Some(block) = block_label(line) {
                let (id, rest) = block;
                if id.index() != blocks.len() {
                    return Err(err(n, format!("expected bb{}, found {id}", blocks.len())));
                }
                let name = if let Some(comment) = rest.strip_prefix(';') {
                    comment.trim().to_string()
                } else {
                    Cursor::new(rest, n).whole_string()?
                };
                blocks.push(RawBlock {
                    name,
                    insts: vec![],
                    term: None,
                });
            } else {
                let Some(block) = blocks.last_mut() else {
                    return Err(err(n, format!("`{line}` outside a block")));
                };
                if block.term.is_some() {
                    return Err(err(n, "instruction after the terminator".into()));
                }
                let (body, loc) = split_loc(line, n)?;
                if is_terminator(body) {
                    block.term = Some((n, body, loc));
                } else {
                    block.insts.push((n, body, loc));
                }
            }
        }
        // Types and source names from the definitions, then phi destinations from moves.
        for b in &blocks {
            for &(n, body, _) in &b.insts {
                if let Some((dest, ty, source)) = definition(body, n)? {
                    self.set_type(dest, ty, n)?;
                    self.slot(dest);
                    if !self.exact {
                        self.sources[dest.index()] = source;
                    }
                }
            }
        }
        self.type_phis(&blocks)?;
        let mut out_blocks = Vec::with_capacity(blocks.len());
        for b in &blocks {
            let mut insts = Vec::new();
            let mut locs = Vec::new();
            for &(n, body, ref loc) in &b.insts {
                insts.push(self.inst(body, n)?);
                locs.push(loc.clone());
            }
            let Some((n, body, ref term_loc)) = b.term else {
                return Err(err(0, format!("block {} has no terminator", b.name)));
            };
            out_blocks.push(Block {
                name: b.name.clone(),
                insts,
                locs,
                term: self.terminator(body, n)?,
                term_loc: term_loc.clone(),
            });
        }
        let values = (0..self.types.len())
            .map(|i| ValueInfo {
                // A value no line mentions: any type will do.
                ty: self.types[i].unwrap_or(Ty::BOOL),
                name: self.names[i].clone().unwrap_or_else(|| format!("v{i}")),
                source_name: self.sources[i].clone(),
            })
            .collect();
        Ok(Function {
            name,
            params,
            values,
            blocks: out_blocks,
            entry,
            loc,
            bases,
        })
    }

    fn slot(&mut self, v: ValueId) {
        if self.types.len() <= v.index() {
            self.types.resize(v.index() + 1, None);
            self.names.resize(v.index() + 1, None);
            self.sources.resize(v.index() + 1, None);
        }
    }

    fn set_type(&mut self, v: ValueId, ty: Ty, line: usize) -> Result<(), ParseError> {
        self.slot(v);
        match self.types[v.index()] {
            Some(t) if t != ty => Err(ParseError {
                line,
                message: format!("{v} is {t} and {ty}"),
            }),
            _ => {
                self.types[v.index()] = Some(ty);
                Ok(())
            }
        }
    }

    /// Gives each phi destination the type of what is moved into it (until nothing changes,
    /// for phis moved into phis).
    fn type_phis(&mut self, blocks: &[RawBlock]) -> Result<(), ParseError> {
        let mut moves = Vec::new();
        for b in blocks {
            if let Some((n, body, _)) = b.term {
                for (dest, src) in edge_moves(body, n)? {
                    moves.push((n, dest, src));
                }
            }
        }
        loop {
            let mut changed = false;
            for (n, dest, src) in &moves {
                let ty = match src {
                    RawOperand::Value(v) => self.types.get(v.index()).copied().flatten(),
                    RawOperand::Typed(op) => carried_ty(op),
                };
                self.slot(*dest);
                if let (Some(ty), None) = (ty, self.types[dest.index()]) {
                    self.set_type(*dest, ty, *n)?;
                    changed = true;
                }
            }
            if !changed {
                return Ok(());
            }
        }
    }

    fn ty_of(&self, v: ValueId, line: usize) -> Result<Ty, ParseError> {
        self.types
            .get(v.index())
            .copied()
            .flatten()
            .ok_or_else(|| ParseError {
                line,
                message: format!("the type of {v} is unknown (no definition, no typed move)"),
            })
    }

    fn operand(&self, c: &mut Cursor) -> Result<Operand, ParseError> {
        match c.raw_operand()? {
            RawOperand::Value(v) => {
                self.ty_of(v, c.line)?;
                Ok(Operand::Value(v))
            }
            RawOperand::Typed(op) => Ok(op),
        }
    }

    fn inst(&self, body: &str, n: usize) -> Result<Inst, ParseError> {
        let mut c = Cursor::new(body, n);
        if c.eat("assume ") {
            let cond = self.operand(&mut c)?;
            c.end()?;
            return Ok(Inst::Assume { cond });
        }
        if c.eat("store ") {
            let addr = self.address(&mut c)?;
            c.expect(",")?;
            let value = self.operand(&mut c)?;
            c.end()?;
            return Ok(Inst::Mem(MemOp::Store { addr, value }));
        }
        if c.eat("init ") {
            let base = BaseId(c.prefixed_id("m")?);
            c.expect("{")?;
            let mut leaves = Vec::new();
            while !c.eat("}") {
                if !leaves.is_empty() {
                    c.expect(",")?;
                }
                let off = c.integer()? as i64;
                c.expect(":")?;
                leaves.push((off, self.operand(&mut c)?));
            }
            let zero_rest = c.eat("zero");
            c.end()?;
            return Ok(Inst::Mem(MemOp::Init {
                base,
                leaves,
                zero_rest,
            }));
        }
        if c.eat("clobber") {
            let mut bases = Vec::new();
            while !c.at_end() {
                if !bases.is_empty() {
                    c.expect(",")?;
                }
                bases.push(BaseId(c.prefixed_id("m")?));
            }
            return Ok(Inst::Mem(MemOp::Clobber { bases }));
        }
        let dest = c.value_id()?;
        c.expect(":")?;
        c.ty()?;
        c.expect("=")?;
        if c.eat("havoc") {
            c.expect("(")?;
            let reason = c.reason(self.exact)?;
            return Ok(Inst::Havoc { dest, reason });
        }
        if c.eat("load ") {
            let addr = self.address(&mut c)?;
            c.skip_comment();
            c.end()?;
            return Ok(Inst::Mem(MemOp::Load { dest, addr }));
        }
        let expr = if c.eat("icmp ") {
            let pred = c.word()?;
            let pred =
                cmp_pred(&pred).ok_or_else(|| c.error(format!("unknown predicate {pred}")))?;
            let lhs = self.operand(&mut c)?;
            c.expect(",")?;
            let rhs = self.operand(&mut c)?;
            Expr::Cmp { pred, lhs, rhs }
        } else if c.eat("select ") {
            let cond = self.operand(&mut c)?;
            c.expect(",")?;
            let on_true = self.operand(&mut c)?;
            c.expect(",")?;
            let on_false = self.operand(&mut c)?;
            Expr::Select {
                cond,
                on_true,
                on_false,
            }
        } else if let Some(op) = [
            ("zext ", CastOp::ZExt),
            ("sext ", CastOp::SExt),
            ("trunc ", CastOp::Trunc),
        ]
        .into_iter()
        .find_map(|(kw, op)| c.eat(kw).then_some(op))
        {
            let arg = self.operand(&mut c)?;
            Expr::Cast { op, arg }
        } else if let Some(count) = c.peek_word().and_then(|w| BitCount::from_name(&w)) {
            c.word()?;
            let arg = self.operand(&mut c)?;
            Expr::BitCount { count, arg }
        } else if let Some(op) = c.peek_word().and_then(|w| bin_op(&w)) {
            c.word()?;
            let mut flags = ArithFlags::default();
            loop {
                if c.eat("nsw ") {
                    flags.nsw = true;
                } else if c.eat("nuw ") {
                    flags.nuw = true;
                } else if c.eat("exact ") {
                    flags.exact = true;
                } else if c.eat("nosanitize ") {
                    flags.nosanitize = true;
                } else {
                    break;
                }
            }
            let lhs = self.operand(&mut c)?;
            c.expect(",")?;
            let rhs = self.operand(&mut c)?;
            Expr::Binary {
                op,
                lhs,
                rhs,
                flags,
            }
        } else {
            Expr::Use(self.operand(&mut c)?)
        };
        c.skip_comment();
        c.end()?;
        Ok(Inst::Assign { dest, expr })
    }

    /// `mN[offset]`.
    fn address(&self, c: &mut Cursor) -> Result<Address, ParseError> {
        let base = BaseId(c.prefixed_id("m")?);
        c.expect("[")?;
        let offset = self.operand(c)?;
        c.expect("]")?;
        Ok(Address { base, offset })
    }

    fn terminator(&self, body: &str, n: usize) -> Result<Terminator, ParseError> {
        let mut c = Cursor::new(body, n);
        let term = if c.eat("jump ") {
            Terminator::Jump(self.edge(&mut c)?)
        } else if c.eat("branch ") {
            let cond = self.operand(&mut c)?;
            c.expect("?")?;
            let then_edge = self.edge(&mut c)?;
            c.expect(":")?;
            let else_edge = self.edge(&mut c)?;
            Terminator::Branch {
                cond,
                then_edge,
                else_edge,
            }
        } else if c.eat("switch ") {
            let on = self.operand(&mut c)?;
            let ty = match on {
                Operand::Value(v) => self.ty_of(v, n)?,
                Operand::Const(k) => k.ty,
                Operand::Undef(t) => t,
            };
            let mut cases = Vec::new();
            loop {
                if c.eat("default=>") {
                    break;
                }
                let value = c.integer()?;
                c.expect("=>")?;
                cases.push((Const::new(ty, value), self.edge(&mut c)?));
            }
            let default = self.edge(&mut c)?;
            Terminator::Switch { on, cases, default }
        } else if c.eat("return") {
            Terminator::Return
        } else if c.eat("stop") {
            Terminator::Stop
        } else if c.eat("error ") {
            c.expect("check")?;
            Terminator::Error(CheckId(c.integer()? as u32))
        } else {
            return Err(c.error("expected a terminator".into()));
        };
        c.end()?;
        Ok(term)
    }

    fn edge(&self, c: &mut Cursor) -> Result<Edge, ParseError> {
        let target = c.block_id()?;
        let mut moves = Vec::new();
        if c.eat("[") {
            while !c.eat("]") {
                if !moves.is_empty() {
                    c.expect(",")?;
                }
                let dest = c.value_id()?;
                c.expect(":=")?;
                moves.push((dest, self.operand(c)?));
            }
        }
        Ok(Edge { target, moves })
    }
}

/// An operand before the types of values are known.
enum RawOperand {
    Value(ValueId),
    /// A constant or `undef`, which carry their type.
    Typed(Operand),
}

/// The type a constant or `undef` carries (`None` for a value).
fn carried_ty(op: &Operand) -> Option<Ty> {
    match op {
        Operand::Const(c) => Some(c.ty),
        Operand::Undef(t) => Some(*t),
        Operand::Value(_) => None,
    }
}

/// `bbN:` at the start of a line: the id and the rest.
fn block_label(line: &str) -> Option<(BlockId, &str)> {
    let rest = line.strip_prefix("bb")?;
    let digits = rest.find(|ch: char| !ch.is_ascii_digit())?;
    let after = rest[digits..].strip_prefix(':')?;
    let id = rest[..digits].parse().ok()?;
    Some((BlockId(id), after.trim()))
}

fn is_terminator(body: &str) -> bool {
    ["jump ", "branch ", "switch ", "error "]
        .iter()
        .any(|kw| body.starts_with(kw))
        || body == "return"
        || body == "stop"
}

/// Splits `body  @loc` (the location is always last).
fn split_loc(line: &str, n: usize) -> Result<(&str, Option<SourceLoc>), ParseError> {
    // The exact form quotes the file, which may hold `@`: the location starts at the last
    // `  @` that is followed by a line number or a quote.
    let Some(at) = line.rfind("  @") else {
        return Ok((line, None));
    };
    let mut c = Cursor::new(&line[at..], n);
    match c.loc_suffix() {
        Ok(Some(loc)) if c.at_end() => Ok((line[..at].trim_end(), Some(loc))),
        _ => {
            // A quoted file name with `  @` in it: search from the first `  @"`.
            if let Some(q) = line.find("  @\"") {
                let mut c = Cursor::new(&line[q..], n);
                if let Ok(Some(loc)) = c.loc_suffix() {
                    if c.at_end() {
                        return Ok((line[..q].trim_end(), Some(loc)));
                    }
                }
            }
            Ok((line, None))
        }
    }
}

/// The value an instruction line defines, its type and its source name (the comment).
fn definition(body: &str, n: usize) -> Result<Option<(ValueId, Ty, Option<String>)>, ParseError> {
    let mut c = Cursor::new(body, n);
    if body.starts_with("assume ")
        || body.starts_with("store ")
        || body.starts_with("clobber")
        || body.starts_with("init ")
    {
        return Ok(None);
    }
    let dest = c.value_id()?;
    c.expect(":")?;
    let ty = c.ty()?;
    let source = body.rfind("  ; ").map(|i| body[i + 4..].trim().to_string());
    Ok(Some((dest, ty, source)))
}

/// The moves of every edge of a terminator line.
fn edge_moves(body: &str, n: usize) -> Result<Vec<(ValueId, RawOperand)>, ParseError> {
    let mut res = Vec::new();
    let mut rest = body;
    while let Some(open) = rest.find('[') {
        let close = rest[open..].find(']').ok_or_else(|| ParseError {
            line: n,
            message: "unclosed `[`".into(),
        })?;
        let mut c = Cursor::new(&rest[open + 1..open + close], n);
        while !c.at_end() {
            if !res.is_empty() && c.eat(",") {
                continue;
            }
            let dest = c.value_id()?;
            c.expect(":=")?;
            res.push((dest, c.raw_operand()?));
            c.eat(",");
        }
        rest = &rest[open + close + 1..];
    }
    Ok(res)
}

fn cmp_pred(s: &str) -> Option<CmpPred> {
    use CmpPred::*;
    Some(match s {
        "eq" => Eq,
        "ne" => Ne,
        "ugt" => Ugt,
        "uge" => Uge,
        "ult" => Ult,
        "ule" => Ule,
        "sgt" => Sgt,
        "sge" => Sge,
        "slt" => Slt,
        "sle" => Sle,
        _ => return None,
    })
}

fn bin_op(s: &str) -> Option<BinOp> {
    use BinOp::*;
    Some(match s {
        "add" => Add,
        "sub" => Sub,
        "mul" => Mul,
        "udiv" => UDiv,
        "sdiv" => SDiv,
        "urem" => URem,
        "srem" => SRem,
        "shl" => Shl,
        "lshr" => LShr,
        "ashr" => AShr,
        "and" => And,
        "or" => Or,
        "xor" => Xor,
        _ => return None,
    })
}

/// A position in one line.
struct Cursor<'t> {
    rest: &'t str,
    line: usize,
}

impl<'t> Cursor<'t> {
    fn new(text: &'t str, line: usize) -> Cursor<'t> {
        Cursor { rest: text, line }
    }

    fn error(&self, message: String) -> ParseError {
        ParseError {
            line: self.line,
            message: format!("{message} at `{}`", self.rest),
        }
    }

    fn skip_ws(&mut self) {
        self.rest = self.rest.trim_start();
    }

    fn at_end(&mut self) -> bool {
        self.skip_ws();
        self.rest.is_empty()
    }

    fn end(&mut self) -> Result<(), ParseError> {
        if self.at_end() {
            Ok(())
        } else {
            Err(self.error("unexpected text".into()))
        }
    }

    /// A `; comment` up to the end (the readable form's source names).
    fn skip_comment(&mut self) {
        self.skip_ws();
        if self.rest.starts_with(';') {
            self.rest = "";
        }
    }

    fn eat(&mut self, s: &str) -> bool {
        self.skip_ws();
        let trimmed = s.trim_start();
        match self.rest.strip_prefix(trimmed) {
            Some(rest) => {
                self.rest = rest;
                true
            }
            None => false,
        }
    }

    fn expect(&mut self, s: &str) -> Result<(), ParseError> {
        if self.eat(s) {
            Ok(())
        } else {
            Err(self.error(format!("expected `{}`", s.trim())))
        }
    }

    fn take_until(&mut self, ch: char) -> Result<&'t str, ParseError> {
        let i = self
            .rest
            .find(ch)
            .ok_or_else(|| self.error(format!("expected `{ch}`")))?;
        let (taken, rest) = self.rest.split_at(i);
        self.rest = rest;
        Ok(taken)
    }

    fn peek_word(&mut self) -> Option<String> {
        self.skip_ws();
        let end = self
            .rest
            .find(|ch: char| !(ch.is_ascii_alphanumeric() || ch == '_'))
            .unwrap_or(self.rest.len());
        (end > 0).then(|| self.rest[..end].to_string())
    }

    fn word(&mut self) -> Result<String, ParseError> {
        let w = self
            .peek_word()
            .ok_or_else(|| self.error("expected a word".into()))?;
        self.rest = &self.rest[w.len()..];
        Ok(w)
    }

    fn integer(&mut self) -> Result<i128, ParseError> {
        self.skip_ws();
        let end = self
            .rest
            .char_indices()
            .find(|&(i, ch)| !(ch.is_ascii_digit() || (i == 0 && ch == '-')))
            .map(|(i, _)| i)
            .unwrap_or(self.rest.len());
        let n = self.rest[..end]
            .parse()
            .map_err(|_| self.error("expected an integer".into()))?;
        self.rest = &self.rest[end..];
        Ok(n)
    }

    fn prefixed_id(&mut self, prefix: &str) -> Result<u32, ParseError> {
        self.skip_ws();
        let Some(rest) = self.rest.strip_prefix(prefix) else {
            return Err(self.error(format!("expected `{prefix}N`")));
        };
        let end = rest
            .find(|ch: char| !ch.is_ascii_digit())
            .unwrap_or(rest.len());
        let id = rest[..end]
            .parse()
            .map_err(|_| self.error(format!("expected `{prefix}N`")))?;
        self.rest = &rest[end..];
        Ok(id)
    }

    fn value_id(&mut self) -> Result<ValueId, ParseError> {
        self.prefixed_id("v").map(ValueId)
    }

    fn block_id(&mut self) -> Result<BlockId, ParseError> {
        self.prefixed_id("bb").map(BlockId)
    }

    fn ty(&mut self) -> Result<Ty, ParseError> {
        let width = self.prefixed_id("i")?;
        if !(1..=128).contains(&width) {
            return Err(self.error(format!("width {width} out of 1..=128")));
        }
        Ok(Ty::int(width))
    }

    fn raw_operand(&mut self) -> Result<RawOperand, ParseError> {
        self.skip_ws();
        if self.rest.starts_with('v') {
            return Ok(RawOperand::Value(self.value_id()?));
        }
        if self.eat("true") {
            return Ok(RawOperand::Typed(Operand::Const(Const::bool(true))));
        }
        if self.eat("false") {
            return Ok(RawOperand::Typed(Operand::Const(Const::bool(false))));
        }
        if self.eat("undef:") {
            return Ok(RawOperand::Typed(Operand::Undef(self.ty()?)));
        }
        let value = self.integer()?;
        self.expect(":")?;
        let ty = self.ty()?;
        Ok(RawOperand::Typed(Operand::Const(Const::new(ty, value))))
    }

    /// A Rust-style quoted string (`{:?}` of a `str`).
    fn string(&mut self) -> Result<String, ParseError> {
        self.skip_ws();
        let mut chars = self.rest.char_indices();
        if !matches!(chars.next(), Some((_, '"'))) {
            return Err(self.error("expected a quoted string".into()));
        }
        let mut out = String::new();
        while let Some((i, ch)) = chars.next() {
            match ch {
                '"' => {
                    self.rest = &self.rest[i + 1..];
                    return Ok(out);
                }
                '\\' => {
                    let (_, esc) = chars
                        .next()
                        .ok_or_else(|| self.error("unfinished escape".into()))?;
                    match esc {
                        'n' => out.push('\n'),
                        't' => out.push('\t'),
                        'r' => out.push('\r'),
                        '0' => out.push('\0'),
                        '\\' | '"' | '\'' => out.push(esc),
                        'u' => {
                            let mut hex = String::new();
                            for (_, h) in chars.by_ref() {
                                match h {
                                    '{' => {}
                                    '}' => break,
                                    _ => hex.push(h),
                                }
                            }
                            let ch = u32::from_str_radix(&hex, 16)
                                .ok()
                                .and_then(char::from_u32)
                                .ok_or_else(|| self.error(format!("bad escape \\u{{{hex}}}")))?;
                            out.push(ch);
                        }
                        _ => return Err(self.error(format!("unknown escape \\{esc}"))),
                    }
                }
                _ => out.push(ch),
            }
        }
        Err(self.error("unclosed string".into()))
    }

    /// A quoted string that is the whole rest of the line.
    fn whole_string(&mut self) -> Result<String, ParseError> {
        let s = self.string()?;
        self.end()?;
        Ok(s)
    }

    /// The reason of a havoc, after `havoc (`, up to the closing parenthesis and the end.
    fn reason(&mut self, exact: bool) -> Result<HavocReason, ParseError> {
        let text = |c: &mut Cursor<'t>| -> Result<String, ParseError> {
            if exact {
                let s = c.string()?;
                c.expect(")")?;
                Ok(s)
            } else {
                // Readable form: up to the last `)` before the source-name comment.
                let body = match c.rest.rfind("  ; ") {
                    Some(i) => &c.rest[..i],
                    None => c.rest,
                };
                let close = body
                    .rfind(')')
                    .ok_or_else(|| c.error("expected `)`".into()))?;
                let s = body[..close].trim().to_string();
                c.rest = &c.rest[close + 1..];
                Ok(s)
            }
        };
        let reason = if self.eat("nondet ") {
            HavocReason::Nondet {
                function: text(self)?,
            }
        } else if self.eat("unknown call ") {
            HavocReason::UnknownCall {
                function: text(self)?,
            }
        } else if self.eat("null param ") {
            HavocReason::NullParam { param: text(self)? }
        } else if self.eat("size param ") {
            HavocReason::SizeParam { param: text(self)? }
        } else if self.eat("address param ") {
            HavocReason::AddressParam { param: text(self)? }
        } else if self.eat("field param ") {
            let offset = u64::try_from(self.integer()?)
                .map_err(|_| self.error("field offset out of range".into()))?;
            self.expect(" ")?;
            HavocReason::FieldParam {
                param: text(self)?,
                offset,
            }
        } else if self.eat("unsupported ") {
            HavocReason::Unsupported { what: text(self)? }
        } else if self.eat("load") {
            self.expect(")")?;
            HavocReason::Load
        } else if self.eat("unknown bounds") {
            self.expect(")")?;
            HavocReason::UnknownBounds
        } else {
            return Err(self.error("unknown havoc reason".into()));
        };
        self.skip_comment();
        self.end()?;
        Ok(reason)
    }

    /// An optional `@line` or `@"file":line:column`.
    fn loc_suffix(&mut self) -> Result<Option<SourceLoc>, ParseError> {
        if !self.eat("@") {
            return Ok(None);
        }
        if self.rest.starts_with('"') {
            let file = self.string()?;
            self.expect(":")?;
            let line = self.integer()? as u32;
            self.expect(":")?;
            let column = self.integer()? as u32;
            Ok(Some(SourceLoc { file, line, column }))
        } else {
            let line = self.integer()? as u32;
            Ok(Some(SourceLoc {
                file: String::new(),
                line,
                column: 0,
            }))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const COUNTER: &str = "\
; a counter loop, written by hand
function count(v0: i32) entry bb0
  bb0: ; entry
    v1: i32 = havoc (nondet polyfocus_nondet_int)  ; n  @3
    jump bb1 [v2 := 0:i32]
  bb1: ; loop
    v3: i1 = icmp slt v2, v1  @5
    branch v3 ? bb2 : bb3  @5
  bb2: ; body
    v4: i32 = add nsw v2, 1:i32  ; i  @6
    jump bb1 [v2 := v4]
  bb3: ; exit
    switch v0 0=>bb4 -7=>bb5 default=>bb4
  bb4: ; ok
    return
  bb5: ; fail
    error check0  @9
";

    #[test]
    fn readable_text_parses_and_prints_back() {
        let f = parse(COUNTER).unwrap();
        assert!(verify(&f).is_empty(), "{:?}", verify(&f));
        assert_eq!(
            f.value(ValueId(2)).ty,
            Ty::int(32),
            "phi typed by its moves"
        );
        assert_eq!(f.value(ValueId(4)).source_name.as_deref(), Some("i"));
        assert_eq!(f.block(BlockId(2)).locs[0].as_ref().unwrap().line, 6);
        let Terminator::Switch { cases, .. } = &f.block(BlockId(3)).term else {
            panic!("switch expected");
        };
        assert_eq!(cases[1].0, Const::new(Ty::int(32), -7));
        let without_comment: String = COUNTER.lines().skip(1).map(|l| format!("{l}\n")).collect();
        assert_eq!(f.to_string(), without_comment);
    }

    #[test]
    fn exact_text_gives_back_the_same_function() {
        let mut f = parse(COUNTER).unwrap();
        f.values[1].name = "odd \"name\"\n  @x".into();
        f.blocks[0].name = "entry; with \\ and ✓".into();
        f.blocks[0].insts[0] = Inst::Havoc {
            dest: ValueId(1),
            reason: HavocReason::Unsupported {
                what: "call (via \"ptr\")".into(),
            },
        };
        f.blocks[2].locs[0] = Some(SourceLoc {
            file: "dir  @x/a b.c".into(),
            line: 6,
            column: 12,
        });
        f.loc = Some(SourceLoc {
            file: "a.c".into(),
            line: 1,
            column: 0,
        });
        let text = format!("{f:#}");
        let parsed = parse(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
        assert_eq!(parsed, f, "{text}");
        assert_eq!(format!("{parsed:#}"), text);
    }

    #[test]
    fn errors_name_the_line() {
        let no_type = "function f() entry bb0\n  bb0: ; e\n    assume v7\n";
        let e = parse(no_type).unwrap_err();
        assert_eq!(e.line, 3);
        assert!(e.message.contains("type of v7"), "{e}");

        let out_of_order = "function f() entry bb0\n  bb1: ; e\n    return\n";
        assert_eq!(parse(out_of_order).unwrap_err().line, 2);

        let no_term = "function f() entry bb0\n  bb0: ; e\n    v0: i8 = 1:i8\n";
        assert!(parse(no_term)
            .unwrap_err()
            .message
            .contains("no terminator"));

        let twice = "function f() entry bb0\n  bb0: ; e\n    v0: i8 = 1:i8\n    v0: i16 = 1:i16\n    return\n";
        assert_eq!(parse(twice).unwrap_err().line, 4);

        let junk = "function f() entry bb0\n  bb0: ; e\n    v0: i8 = frobnicate 1:i8\n    return\n";
        assert_eq!(parse(junk).unwrap_err().line, 3);
    }

    #[test]
    fn several_functions() {
        let text = format!(
            "{COUNTER}\n{}",
            COUNTER.replace("function count", "function again")
        );
        let fs = parse_functions(&text).unwrap();
        assert_eq!(fs.len(), 2);
        assert_eq!(fs[1].name, "again");
        assert!(parse(&text).is_err(), "parse wants exactly one");
    }
}
