//! What a write noticed and did not refuse, as facts with their data:
//! which note, which line, which tag, how many links. `Display` states the
//! fact in a sentence.
//!
//! Must not name the agent's tools or their arguments: what to do about a
//! warning, in those terms, is said by the tools layer (`weft-tools`),
//! which renders warnings for agents. Notes the agent may not access are
//! never named here ([`Place::Unseen`]).

use std::fmt;

use serde::{Serialize, Serializer};

/// Where a link leads, as a warning may name it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Place {
    /// A note (or file) the agent may see, by its vault path.
    Note(String),
    /// A note the agent may not access, never named.
    Unseen,
    /// No note: the link would not resolve.
    Nowhere,
}

impl fmt::Display for Place {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Place::Note(path) => write!(f, "`{path}`"),
            Place::Unseen => f.write_str("a note this agent may not access"),
            Place::Nowhere => f.write_str("nowhere"),
        }
    }
}

/// How a link reached a note that a change takes away.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LostBy {
    /// An alias or title, by this name.
    Name(String),
    /// A heading or block id, written so after `#`.
    Fragment(String),
}

/// One thing a write noticed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Warning {
    /// A link into the changed note (on `line`, 1-based, of `source`) that
    /// will not resolve after the change.
    LinkLost {
        source: String,
        line: usize,
        by: LostBy,
    },
    /// More such links than are listed.
    MoreLinksLost { count: usize },
    /// Such links in notes the agent may not access.
    UnseenLinksLost { count: usize },
    /// A tag removed from the frontmatter is still written inline (on
    /// `line`, 1-based).
    TagStillInline { tag: String, line: usize },
    /// A note a move could not read as UTF-8: its links were not looked at.
    UnreadLinks { path: String },
    /// Links in notes the agent may not access that may lead elsewhere
    /// after a move.
    UnseenLinksCaptured { count: usize },
    /// A link (written `link`, on `line` of `path`) that leads to `target`
    /// and will lead to `after` once the move is made, left as it is.
    LinkCaptured {
        link: String,
        line: usize,
        path: String,
        target: Place,
        after: Place,
    },
    /// Such a link that no link text was found to keep where it leads.
    LinkNotPinned {
        link: String,
        line: usize,
        path: String,
        target: Place,
        after: Place,
    },
    /// A folder moved file by file still holds files the vault does not
    /// index, which did not move.
    FilesLeftBehind { folder: String },
    /// A link (on `line` of `source`) to a deleted note that will lead to
    /// one of `others` instead.
    LinkFallsToAnother {
        source: String,
        line: usize,
        others: Vec<Place>,
    },
    /// A note not valid UTF-8, whose links to a deleted note were not
    /// marked.
    LinksNotMarked { path: String },
    /// Notes the agent may not access that use a renamed tag: they keep it.
    UnseenTagsKept { count: usize },
    /// A use of a renamed tag (`what`) in `path` that could not be
    /// rewritten.
    TagNotRenamed { path: String, what: String },
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Warning::LinkLost { source, line, by } => {
                write!(
                    f,
                    "the link on line {line} of `{source}` reaches this note "
                )?;
                match by {
                    LostBy::Name(name) => write!(f, "by the name `{name}`")?,
                    LostBy::Fragment(fragment) => write!(f, "at `#{fragment}`")?,
                }
                f.write_str(", which this change removes: it will not resolve")
            }
            Warning::MoreLinksLost { count } => write!(f, "… and {count} more such links"),
            Warning::UnseenLinksLost { count } => write!(
                f,
                "{count} link(s) in notes this agent may not access reach this note the same way: \
                 they will not resolve either"
            ),
            Warning::TagStillInline { tag, line } => {
                write!(f, "#{tag} is still used inline on line {line}")
            }
            Warning::UnreadLinks { path } => write!(
                f,
                "`{path}` could not be read as UTF-8 text: links in it were not looked at; check \
                 them by hand"
            ),
            Warning::UnseenLinksCaptured { count } => write!(
                f,
                "{count} link(s) in notes this agent may not access may lead elsewhere after the \
                 move; the user may want to check them"
            ),
            Warning::LinkCaptured {
                link,
                line,
                path,
                target,
                after,
            } => write!(
                f,
                "the link `{link}` on line {line} of `{path}` leads to {target} and will lead to \
                 {after} after the move"
            ),
            Warning::LinkNotPinned {
                link,
                line,
                path,
                target,
                after,
            } => write!(
                f,
                "the link `{link}` on line {line} of `{path}` leads to {target}, and after the move \
                 will lead to {after}; Weft could not find a link text that keeps it, check it by \
                 hand"
            ),
            Warning::FilesLeftBehind { folder } => write!(
                f,
                "`{folder}` still holds files Weft does not index (hidden or excluded); they were \
                 not moved"
            ),
            Warning::LinkFallsToAnother {
                source,
                line,
                others,
            } => {
                write!(f, "the link on line {line} of `{source}` will lead to ")?;
                for (i, other) in others.iter().enumerate() {
                    if i > 0 {
                        f.write_str(" or ")?;
                    }
                    write!(f, "{other}")?;
                }
                f.write_str(" instead")
            }
            Warning::LinksNotMarked { path } => write!(
                f,
                "`{path}` is not valid UTF-8: its links were not marked as deleted"
            ),
            Warning::UnseenTagsKept { count } => write!(
                f,
                "{count} note(s) this agent may not access use the tag too; they keep it"
            ),
            Warning::TagNotRenamed { path, what } => {
                write!(f, "`{path}`: {what} was not renamed; change it by hand")
            }
        }
    }
}

/// A warning serializes as its sentence.
impl Serialize for Warning {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}
