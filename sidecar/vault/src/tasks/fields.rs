//! A task line's fields read as the Tasks plugin reads them: from the end of
//! the line, one known field (or trailing `#tag`) at a time, in any order,
//! until the text left ends in something else (`DefaultTaskSerializer`'s
//! loop, at most 21 passes). A field left of ordinary words is text. Both
//! formats are read: the emoji format (`📅 2024-05-01`) and the Dataview
//! format (`[due:: 2024-05-01]`), a task's format being the one its fields
//! are written in.
//!
//! Only the text after the checkbox is read here; which lines are tasks is
//! the Markdown walk's business, what a status means `status.rs`'s.

use std::ops::Range;

use serde::{Deserialize, Serialize};

/// A field a task line can carry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FieldKind {
    Id,
    DependsOn,
    Priority,
    Recurrence,
    OnCompletion,
    Created,
    Start,
    Scheduled,
    Due,
    Cancelled,
    Done,
}

impl FieldKind {
    /// Every field in the order the plugin writes them
    /// (`TaskLayoutComponent`): after the description, before a block id.
    pub const WRITE_ORDER: [FieldKind; 11] = [
        FieldKind::Id,
        FieldKind::DependsOn,
        FieldKind::Priority,
        FieldKind::Recurrence,
        FieldKind::OnCompletion,
        FieldKind::Created,
        FieldKind::Start,
        FieldKind::Scheduled,
        FieldKind::Due,
        FieldKind::Cancelled,
        FieldKind::Done,
    ];

    /// The emoji the plugin writes for a field (priority has one per level).
    pub fn emoji(self) -> &'static str {
        match self {
            FieldKind::Id => "🆔",
            FieldKind::DependsOn => "⛔",
            FieldKind::Priority => "",
            FieldKind::Recurrence => "🔁",
            FieldKind::OnCompletion => "🏁",
            FieldKind::Created => "➕",
            FieldKind::Start => "🛫",
            FieldKind::Scheduled => "⏳",
            FieldKind::Due => "📅",
            FieldKind::Cancelled => "❌",
            FieldKind::Done => "✅",
        }
    }

    /// The Dataview key, with its `::`.
    pub fn dataview_key(self) -> &'static str {
        match self {
            FieldKind::Id => "id::",
            FieldKind::DependsOn => "dependsOn::",
            FieldKind::Priority => "priority::",
            FieldKind::Recurrence => "repeat::",
            FieldKind::OnCompletion => "onCompletion::",
            FieldKind::Created => "created::",
            FieldKind::Start => "start::",
            FieldKind::Scheduled => "scheduled::",
            FieldKind::Due => "due::",
            FieldKind::Cancelled => "cancelled::",
            FieldKind::Done => "completion::",
        }
    }

    /// Every emoji read for the field: the one written first, then the
    /// alternatives (`📆`, `🗓` for due; `⌛` for scheduled).
    pub fn emojis(self) -> &'static [&'static str] {
        match self {
            FieldKind::Due => &["📅", "📆", "🗓"],
            FieldKind::Scheduled => &["⏳", "⌛"],
            FieldKind::Priority => &PRIORITY_EMOJI,
            FieldKind::Id => &["🆔"],
            FieldKind::DependsOn => &["⛔"],
            FieldKind::Recurrence => &["🔁"],
            FieldKind::OnCompletion => &["🏁"],
            FieldKind::Created => &["➕"],
            FieldKind::Start => &["🛫"],
            FieldKind::Cancelled => &["❌"],
            FieldKind::Done => &["✅"],
        }
    }

    fn value(self) -> Value {
        match self {
            FieldKind::Id => Value::Id,
            FieldKind::DependsOn => Value::Ids,
            FieldKind::Priority => Value::Level,
            FieldKind::Recurrence => Value::Rule,
            FieldKind::OnCompletion => Value::Word,
            _ => Value::Date,
        }
    }
}

/// Highest, high, medium, low, lowest.
pub const PRIORITY_EMOJI: [&str; 5] = ["🔺", "⏫", "🔼", "🔽", "⏬"];
/// The Dataview words for [`PRIORITY_EMOJI`], in the same order.
pub const PRIORITY_WORDS: [&str; 5] = ["highest", "high", "medium", "low", "lowest"];

/// How a field is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub enum Format {
    /// `📅 2024-05-01`
    #[default]
    Emoji,
    /// `[due:: 2024-05-01]` (or with parentheses)
    Dataview,
}

/// One field read off the line. Ranges are byte offsets into the text
/// given to [`read`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Field {
    pub kind: FieldKind,
    pub format: Format,
    /// The field as written, emoji or brackets included, without the
    /// spaces around it.
    pub span: Range<usize>,
    /// Its value (for a priority, the emoji or the Dataview word).
    pub value: Range<usize>,
}

/// What the text after a checkbox holds.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Fields {
    /// The description: the text the fields leave, then the tags that
    /// stood among the fields, space-separated (as the plugin puts them
    /// back).
    pub description: String,
    /// The fields read, right to left. When a field is written twice the
    /// leftmost one counts (the plugin reads it last).
    pub fields: Vec<Field>,
    /// A `^block-id` ending the line (the caret included).
    pub block: Option<Range<usize>>,
    /// Where the text left of the fields ends (before the spaces).
    pub rest_end: usize,
}

impl Fields {
    /// The field of `kind` that counts (the leftmost written).
    pub fn get(&self, kind: FieldKind) -> Option<&Field> {
        self.fields.iter().rev().find(|f| f.kind == kind)
    }

    /// The format the task's fields are written in: Dataview when any of
    /// them is; `None` when it has none (the vault's setting decides then).
    pub fn format(&self) -> Option<Format> {
        let dataview = self.fields.iter().any(|f| f.format == Format::Dataview);
        let any = !self.fields.is_empty();
        any.then_some(if dataview {
            Format::Dataview
        } else {
            Format::Emoji
        })
    }
}

/// The plugin stops after this many passes over a line.
const MAX_PASSES: usize = 21;

/// Reads the fields of a task's text (everything after `[c]`).
pub fn read(text: &str) -> Fields {
    let start = text.len() - text.trim_start().len();
    let mut end = start + text[start..].trim_end().len();
    let mut out = Fields::default();
    // ` ^id` at the very end belongs to the line, not to the description.
    if let Some(at) = block_id(&text[start..end]) {
        out.block = Some(start + at + 1..end);
        end = start + text[start..start + at].trim_end().len();
    }
    let mut tags: Vec<Range<usize>> = Vec::new();
    // The kinds whose emoji or Dataview key the line holds anywhere: the
    // passes try only those (a line with no field skips them all). One
    // look at each character beyond ASCII and each `::`.
    let mut possible = [false; PASS.len()];
    for (i, step) in PASS.iter().enumerate() {
        possible[i] = matches!(step, Step::Tag);
    }
    let mut allow = |holds: &dyn Fn(FieldKind) -> bool| {
        for (i, step) in PASS.iter().enumerate() {
            if let Step::Field(kind) = step
                && holds(*kind)
            {
                possible[i] = true;
            }
        }
    };
    for c in text.chars().filter(|c| !c.is_ascii()) {
        allow(&|kind| kind.emojis().iter().any(|e| e.starts_with(c)));
    }
    for (at, _) in text.match_indices("::") {
        let key = &text[..at + 2];
        allow(&|kind| key.ends_with(kind.dataview_key()));
    }
    for _ in 0..MAX_PASSES {
        let mut matched = false;
        for (step, possible) in PASS.into_iter().zip(possible) {
            if !possible {
                continue;
            }
            let line = &text[start..end];
            let kind = match step {
                Step::Field(kind) => kind,
                Step::Tag => {
                    if let Some(tag) = trailing_tag(line) {
                        tags.push(start + tag.start..start + tag.end);
                        end = start + line[..tag.start].trim_end().len();
                        matched = true;
                    }
                    continue;
                }
            };
            let found = emoji_field(line, kind)
                .map(|f| (f, Format::Emoji))
                .or_else(|| dataview_field(line, kind).map(|f| (f, Format::Dataview)));
            if let Some(((span, value), format)) = found {
                out.fields.push(Field {
                    kind,
                    format,
                    span: start + span.start..start + span.end,
                    value: start + value.start..start + value.end,
                });
                end = start + line[..span.start].trim_end().len();
                matched = true;
            }
        }
        if !matched {
            break;
        }
    }
    out.rest_end = end;
    // Sized exactly: a task keeps this buffer as it is.
    let size = end - start + tags.iter().map(|t| t.len() + 1).sum::<usize>();
    let mut description = String::with_capacity(size);
    description.push_str(&text[start..end]);
    for tag in tags.iter().rev() {
        if !description.is_empty() {
            description.push(' ');
        }
        description.push_str(&text[tag.clone()]);
    }
    out.description = description;
    out
}

/// One step of a pass.
#[derive(Clone, Copy)]
enum Step {
    Field(FieldKind),
    /// A `#tag` ending the line, put back into the description.
    Tag,
}

/// One pass's steps, in the plugin's order.
const PASS: [Step; 12] = [
    Step::Field(FieldKind::Priority),
    Step::Field(FieldKind::Done),
    Step::Field(FieldKind::Cancelled),
    Step::Field(FieldKind::Due),
    Step::Field(FieldKind::Scheduled),
    Step::Field(FieldKind::Start),
    Step::Field(FieldKind::Created),
    Step::Field(FieldKind::Recurrence),
    Step::Field(FieldKind::OnCompletion),
    Step::Tag,
    Step::Field(FieldKind::Id),
    Step::Field(FieldKind::DependsOn),
];

/// What a field's value may be.
#[derive(Clone, Copy)]
enum Value {
    /// `\d{4}-\d{2}-\d{2}`
    Date,
    /// `[a-zA-Z0-9, !]+`
    Rule,
    /// `[a-zA-Z]+`
    Word,
    /// `[a-zA-Z0-9-_]+`
    Id,
    /// ids separated by commas, spaces around the commas
    Ids,
    /// a priority word (Dataview) or nothing (emoji)
    Level,
}

fn id_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '-' || c == '_'
}

/// Where a value of kind `value` starts when it ends `line`, reading as
/// the plugin's regular expressions do (a value class that includes spaces
/// takes them).
fn value_start(line: &str, value: Value) -> Option<usize> {
    let bytes = line.as_bytes();
    let n = bytes.len();
    let suffix = |keep: fn(u8) -> bool| {
        let k = bytes.iter().rev().take_while(|&&b| keep(b)).count();
        (k > 0).then_some(n - k)
    };
    match value {
        Value::Date => {
            let at = n.checked_sub(10)?;
            let d = &bytes[at..];
            let digits = |r: Range<usize>| d[r].iter().all(u8::is_ascii_digit);
            (digits(0..4) && d[4] == b'-' && digits(5..7) && d[7] == b'-' && digits(8..10))
                .then_some(at)
        }
        Value::Rule => suffix(|b| b.is_ascii_alphanumeric() || matches!(b, b',' | b' ' | b'!')),
        Value::Word => suffix(|b| b.is_ascii_alphabetic()),
        Value::Id => suffix(|b| id_char(b as char)),
        Value::Ids => {
            let at = suffix(|b| id_char(b as char) || matches!(b, b',' | b' '))?;
            // `id( *, *id *)*`: no leading spaces (the ` *` before the
            // value takes them), no empty item, no space inside an id.
            let at = at + (line[at..].len() - line[at..].trim_start_matches(' ').len());
            let ok = line[at..].split(',').all(|item| {
                let item = item.trim_matches(' ');
                !item.is_empty() && !item.contains(' ')
            });
            (ok && at < n).then_some(at)
        }
        Value::Level => None,
    }
}

/// An emoji field ending `line`: (its span, its value).
fn emoji_field(line: &str, kind: FieldKind) -> Option<(Range<usize>, Range<usize>)> {
    let n = line.len();
    let (value, before) = match kind.value() {
        Value::Level => (n..n, line.strip_suffix('\u{fe0f}').unwrap_or(line)),
        class => {
            let at = value_start(line, class)?;
            // ` *` between the emoji and its value; a class with spaces
            // took them already.
            let head = line[..at].trim_end_matches(' ');
            let head = head.strip_suffix('\u{fe0f}').unwrap_or(head);
            let value = at + (line[at..].len() - line[at..].trim_start_matches(' ').len());
            (value..n, head)
        }
    };
    let emoji = kind.emojis().iter().find(|e| before.ends_with(**e))?;
    let start = before.len() - emoji.len();
    let value = if matches!(kind.value(), Value::Level) {
        start..before.len()
    } else {
        value
    };
    let value = value.start..value.start + line[value].trim_end().len();
    (value.start < value.end || matches!(kind.value(), Value::Level)).then_some((start..n, value))
}

/// A Dataview field `[key:: value]` or `(key:: value)` ending `line`,
/// spaces inside the brackets and a trailing `,` allowed.
fn dataview_field(line: &str, kind: FieldKind) -> Option<(Range<usize>, Range<usize>)> {
    let mut body = line;
    if let Some(before) = body.strip_suffix(',') {
        body = before.trim_end_matches(' ');
    }
    let close = body
        .chars()
        .next_back()
        .filter(|c| matches!(c, ']' | ')'))?;
    let inner = body[..body.len() - 1].trim_end_matches(' ');
    let (value, head) = match kind.value() {
        Value::Level => {
            let word = PRIORITY_WORDS.iter().find(|w| inner.ends_with(**w))?;
            let at = inner.len() - word.len();
            // `highest` before `high`: a longer word ending here wins.
            (at..inner.len(), &inner[..at])
        }
        class => {
            let at = value_start(inner, class)?;
            (at..inner.len(), &inner[..at])
        }
    };
    let head = head.trim_end_matches(' ');
    let key = kind.dataview_key();
    let head = head.strip_suffix(key)?;
    let head = head.trim_end_matches(' ');
    let open = head.chars().next_back()?;
    let paired = matches!((open, close), ('[', ']') | ('(', ')'));
    if !paired {
        return None;
    }
    let start = head.len() - 1;
    let value_text = &inner[value.clone()];
    let lead = value_text.len() - value_text.trim_start().len();
    let value = value.start + lead..value.start + value_text.trim_end().len();
    if value.start >= value.end {
        return None;
    }
    Some((start..line.len(), value))
}

/// ` #tag` ending `line` (`(^|\s)#[^ !@#$%^&*(),.?":{}|<>]+$`): the tag's
/// range, `#` included.
fn trailing_tag(line: &str) -> Option<Range<usize>> {
    const STOP: &[char] = &[
        ' ', '!', '@', '#', '$', '%', '^', '&', '*', '(', ')', ',', '.', '?', '"', ':', '{', '}',
        '|', '<', '>',
    ];
    let name_at = line.rfind(STOP).map_or(0, |i| i + 1);
    if name_at == line.len() || name_at == 0 || line.as_bytes()[name_at - 1] != b'#' {
        return None;
    }
    let hash = name_at - 1;
    let before = line[..hash].chars().next_back();
    if before.is_some_and(|c| !c.is_whitespace()) {
        return None;
    }
    Some(hash..line.len())
}

/// ` ^id` ending `line` (`/ \^[a-zA-Z0-9-]+$/`): where the space is.
fn block_id(line: &str) -> Option<usize> {
    let caret = line.rfind('^')?;
    let id = &line[caret + 1..];
    let ok = !id.is_empty() && id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-');
    (ok && caret > 0 && line.as_bytes()[caret - 1] == b' ').then(|| caret - 1)
}

#[cfg(test)]
#[path = "fields_tests.rs"]
mod tests;
