//! Tokens into an [`Expr`] by precedence climbing, JavaScript's order:
//! `||` < `&&` < equality < comparison < `+ -` < `* / %` < unary `! -` <
//! member, index and call. Nesting is bounded by [`MAX_DEPTH`].

use std::ops::Range;

use super::lex::{Tok, lex};
use super::{BinOp, Expr, ExprError, Kind, MAX_BYTES, MAX_DEPTH, UnOp};

/// Reads `src` as one expression.
pub fn parse(src: &str) -> Result<Expr, ExprError> {
    if src.len() > MAX_BYTES {
        return Err(ExprError {
            message: format!(
                "the expression is {} bytes long; at most {MAX_BYTES} are read",
                src.len()
            ),
            span: 0..src.len(),
        });
    }
    let toks = lex(src)?;
    if toks.is_empty() {
        return Err(ExprError {
            message: "the expression is empty".into(),
            span: 0..src.len(),
        });
    }
    let mut p = Parser {
        toks,
        at: 0,
        end: src.len(),
    };
    let expr = p.expr(0)?;
    if let Some((tok, span)) = p.toks.get(p.at) {
        return Err(ExprError {
            message: format!("unexpected {} after a complete expression", shown(tok)),
            span: span.clone(),
        });
    }
    Ok(expr)
}

struct Parser {
    toks: Vec<(Tok, Range<usize>)>,
    at: usize,
    end: usize,
}

/// A token as an error names it.
fn shown(tok: &Tok) -> String {
    match tok {
        Tok::Name(n) => format!("`{n}`"),
        Tok::Number(n) => format!("`{n}`"),
        Tok::Str(s) => format!("the string \"{s}\""),
        Tok::Regex { pattern, .. } => format!("the regular expression /{pattern}/"),
        Tok::Op(op) => format!("`{op}`"),
    }
}

/// A binary operator's precedence (higher binds tighter).
fn binary(op: &str) -> Option<(BinOp, u8)> {
    Some(match op {
        "||" => (BinOp::Or, 1),
        "&&" => (BinOp::And, 2),
        "==" | "===" => (BinOp::Eq, 3),
        "!=" | "!==" => (BinOp::Ne, 3),
        "<" => (BinOp::Lt, 4),
        "<=" => (BinOp::Le, 4),
        ">" => (BinOp::Gt, 4),
        ">=" => (BinOp::Ge, 4),
        "+" => (BinOp::Add, 5),
        "-" => (BinOp::Sub, 5),
        "*" => (BinOp::Mul, 6),
        "/" => (BinOp::Div, 6),
        "%" => (BinOp::Rem, 6),
        _ => return None,
    })
}

impl Parser {
    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.at).map(|(t, _)| t)
    }

    fn peek_op(&self) -> Option<&'static str> {
        match self.peek() {
            Some(Tok::Op(op)) => Some(op),
            _ => None,
        }
    }

    /// The range of the next token, or the end of the source.
    fn here(&self) -> Range<usize> {
        self.toks
            .get(self.at)
            .map_or(self.end..self.end, |(_, s)| s.clone())
    }

    fn next(&mut self) -> Option<(Tok, Range<usize>)> {
        let tok = self.toks.get(self.at).cloned();
        self.at += 1;
        tok
    }

    fn expect(&mut self, op: &str, what: &str) -> Result<Range<usize>, ExprError> {
        match self.toks.get(self.at) {
            Some((Tok::Op(o), span)) if *o == op => {
                let span = span.clone();
                self.at += 1;
                Ok(span)
            }
            Some((tok, span)) => Err(ExprError {
                message: format!("expected `{op}` {what}, found {}", shown(tok)),
                span: span.clone(),
            }),
            None => Err(ExprError {
                message: format!("expected `{op}` {what}, but the expression ends"),
                span: self.end..self.end,
            }),
        }
    }

    fn deeper(depth: usize, span: Range<usize>) -> Result<usize, ExprError> {
        if depth >= MAX_DEPTH {
            return Err(ExprError {
                message: format!("the expression nests more than {MAX_DEPTH} levels deep"),
                span,
            });
        }
        Ok(depth + 1)
    }

    /// An expression whose operators bind at least as tightly as `min`.
    fn expr_at(&mut self, min: u8, depth: usize) -> Result<Expr, ExprError> {
        let depth = Self::deeper(depth, self.here())?;
        let mut left = self.unary(depth)?;
        while let Some((op, prec)) = self.peek_op().and_then(binary) {
            if prec < min {
                break;
            }
            self.at += 1;
            let right = self.expr_at(prec + 1, depth)?;
            let span = left.span.start..right.span.end;
            left = Expr {
                kind: Kind::Binary(op, Box::new(left), Box::new(right)),
                span,
            };
        }
        Ok(left)
    }

    fn expr(&mut self, depth: usize) -> Result<Expr, ExprError> {
        self.expr_at(0, depth)
    }

    fn unary(&mut self, depth: usize) -> Result<Expr, ExprError> {
        let op = match self.peek_op() {
            Some("!") => Some(UnOp::Not),
            Some("-") => Some(UnOp::Neg),
            Some("+") => Some(UnOp::Plus),
            _ => None,
        };
        if let Some(op) = op {
            let start = self.here().start;
            self.at += 1;
            let depth = Self::deeper(depth, self.here())?;
            let inner = self.unary(depth)?;
            let span = start..inner.span.end;
            return Ok(Expr {
                kind: Kind::Unary(op, Box::new(inner)),
                span,
            });
        }
        let primary = self.primary(depth)?;
        self.postfix(primary, depth)
    }

    /// `.name`, `.name(args)`, `[index]` after `base`.
    fn postfix(&mut self, mut base: Expr, depth: usize) -> Result<Expr, ExprError> {
        let mut links = 0usize;
        loop {
            match self.peek_op() {
                Some(".") => {
                    self.at += 1;
                    let (name, name_span) = match self.next() {
                        Some((Tok::Name(n), s)) => (n, s),
                        Some((tok, s)) => {
                            return Err(ExprError {
                                message: format!(
                                    "expected a name after `.`, found {}",
                                    shown(&tok)
                                ),
                                span: s,
                            });
                        }
                        None => {
                            return Err(ExprError {
                                message: "expected a name after `.`, but the expression ends"
                                    .into(),
                                span: self.end..self.end,
                            });
                        }
                    };
                    if self.peek_op() == Some("(") {
                        let (args, end) = self.args(depth)?;
                        let span = base.span.start..end;
                        base = Expr {
                            kind: Kind::Method(Box::new(base), name, name_span, args),
                            span,
                        };
                    } else {
                        let span = base.span.start..name_span.end;
                        base = Expr {
                            kind: Kind::Member(Box::new(base), name, name_span),
                            span,
                        };
                    }
                }
                Some("[") => {
                    self.at += 1;
                    let index = self.expr(depth)?;
                    let end = self.expect("]", "to close the index")?.end;
                    let span = base.span.start..end;
                    base = Expr {
                        kind: Kind::Index(Box::new(base), Box::new(index)),
                        span,
                    };
                }
                Some("(") => {
                    return Err(ExprError {
                        message: "only a function's name or a method can be called".into(),
                        span: self.here(),
                    });
                }
                _ => return Ok(base),
            }
            // A chain counts as nesting too: `a.b.c…` thousands long.
            links += 1;
            if links > MAX_DEPTH * 4 {
                return Err(ExprError {
                    message: format!("a chain of more than {} steps", MAX_DEPTH * 4),
                    span: base.span,
                });
            }
        }
    }

    /// `(a, b, …)` from its `(`: the arguments and where the `)` ends.
    fn args(&mut self, depth: usize) -> Result<(Vec<Expr>, usize), ExprError> {
        self.expect("(", "")?;
        let mut args = Vec::new();
        if self.peek_op() == Some(")") {
            return Ok((args, self.next().expect("peeked").1.end));
        }
        loop {
            args.push(self.expr(depth)?);
            match self.peek_op() {
                Some(",") => self.at += 1,
                _ => {
                    let end = self.expect(")", "to close the arguments")?.end;
                    return Ok((args, end));
                }
            }
        }
    }

    fn primary(&mut self, depth: usize) -> Result<Expr, ExprError> {
        let Some((tok, span)) = self.next() else {
            return Err(ExprError {
                message: "the expression ends where a value was expected".into(),
                span: self.end..self.end,
            });
        };
        let kind = match tok {
            Tok::Number(n) => Kind::Number(n),
            Tok::Str(s) => Kind::Str(s),
            Tok::Regex { pattern, flags } => Kind::Regex { pattern, flags },
            Tok::Name(name) => match name.as_str() {
                "true" => Kind::Bool(true),
                "false" => Kind::Bool(false),
                "null" => Kind::Null,
                _ if self.peek_op() == Some("(") => {
                    let (args, end) = self.args(depth)?;
                    return Ok(Expr {
                        kind: Kind::Call(name, args),
                        span: span.start..end,
                    });
                }
                _ => Kind::Name(name),
            },
            Tok::Op("(") => {
                let inner = self.expr(depth)?;
                let end = self.expect(")", "to close the parenthesis")?.end;
                return Ok(Expr {
                    kind: inner.kind,
                    span: span.start..end,
                });
            }
            Tok::Op("[") => {
                let mut items = Vec::new();
                if self.peek_op() != Some("]") {
                    loop {
                        items.push(self.expr(depth)?);
                        if self.peek_op() == Some(",") {
                            self.at += 1;
                        } else {
                            break;
                        }
                    }
                }
                let end = self.expect("]", "to close the list")?.end;
                return Ok(Expr {
                    kind: Kind::List(items),
                    span: span.start..end,
                });
            }
            Tok::Op("{") => {
                let mut entries = Vec::new();
                if self.peek_op() != Some("}") {
                    loop {
                        let key = match self.next() {
                            Some((Tok::Str(k) | Tok::Name(k), _)) => k,
                            Some((tok, s)) => {
                                return Err(ExprError {
                                    message: format!(
                                        "expected a key in the object, found {}",
                                        shown(&tok)
                                    ),
                                    span: s,
                                });
                            }
                            None => {
                                return Err(ExprError {
                                    message: "the object is not closed".into(),
                                    span: self.end..self.end,
                                });
                            }
                        };
                        self.expect(":", "after the object's key")?;
                        entries.push((key, self.expr(depth)?));
                        if self.peek_op() == Some(",") {
                            self.at += 1;
                        } else {
                            break;
                        }
                    }
                }
                let end = self.expect("}", "to close the object")?.end;
                return Ok(Expr {
                    kind: Kind::Object(entries),
                    span: span.start..end,
                });
            }
            Tok::Op(op) => {
                return Err(ExprError {
                    message: format!("`{op}` where a value was expected"),
                    span,
                });
            }
        };
        Ok(Expr { kind, span })
    }
}
