//! A query's text as statements: one a line, a line ending in `\` going on
//! on the next (its leading white space dropped, the `\` and the white
//! space before it too; `\\` at the end is one literal `\`), as the Tasks
//! plugin's scanner reads it. Blank statements are dropped.

/// One instruction, and the lines it was written on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Statement {
    /// 0-based lines of the query's text: the first and the last.
    pub first: u32,
    pub last: u32,
    /// The instruction with its continuations joined, trimmed.
    pub text: String,
}

/// The most statements a query may hold (each line at most one).
pub const MAX_STATEMENTS: usize = 2_000;

/// The statements of `source`.
pub fn statements(source: &str) -> Vec<Statement> {
    let mut out = Vec::new();
    let mut current: Option<Statement> = None;
    for (n, raw) in source.split('\n').enumerate() {
        let raw = raw.strip_suffix('\r').unwrap_or(raw);
        let n = n as u32;
        let continues = raw.ends_with('\\') && !raw.ends_with("\\\\");
        let mut line = match &current {
            Some(_) => raw.trim_start_matches([' ', '\t']),
            None => raw,
        }
        .to_string();
        if line.ends_with("\\\\") {
            line.pop();
        } else if continues {
            line.pop();
            line.truncate(line.trim_end_matches([' ', '\t']).len());
        }
        let statement = match current.take() {
            Some(mut s) => {
                s.text.push(' ');
                s.text.push_str(&line);
                s.last = n;
                s
            }
            None => Statement {
                first: n,
                last: n,
                text: line,
            },
        };
        if continues {
            current = Some(statement);
        } else if !statement.text.trim().is_empty() {
            out.push(Statement {
                text: statement.text.trim().to_string(),
                ..statement
            });
        }
        if out.len() >= MAX_STATEMENTS {
            return out;
        }
    }
    if let Some(s) = current.filter(|s| !s.text.trim().is_empty()) {
        out.push(Statement {
            text: s.text.trim().to_string(),
            ..s
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn continuations_and_blank_lines() {
        let got = statements(
            "not done\n\n(due before today) \\\n   OR (no due date)\npath includes a\\\\\r\n",
        );
        let texts: Vec<(&str, u32, u32)> = got
            .iter()
            .map(|s| (s.text.as_str(), s.first, s.last))
            .collect();
        assert_eq!(
            texts,
            [
                ("not done", 0, 0),
                ("(due before today) OR (no due date)", 2, 3),
                ("path includes a\\", 4, 4),
            ]
        );
        // A continuation on the last line ends the statement.
        assert_eq!(statements("done \\")[0].text, "done");
    }
}
