//! What `related_notes` finds, as data: the notes the agent may see that
//! are related to a note or a text (`search::related`: links, tags, words
//! and the similarities of meaning it is given), with why the answer lacks
//! a signal. No words of its own and no files read: the notes close in
//! meaning and their passages are `run`'s, the words `render`'s.

use weft_search::related::{Related, Subject, related};
use weft_search::{FileSource, SearchIndex};
use weft_vault::filter::FileMeta;
use weft_vault::{NoteId, VaultIndex};
use weft_workspace::access::Access;

/// A `related_notes` request, read and checked.
#[derive(Debug, Clone, Copy)]
pub struct Query<'a> {
    pub subject: Subject<'a>,
    pub limit: usize,
}

/// What the text signals come from: the full-text index (absent while it
/// is built) and the notes' files.
pub struct Sources<'a> {
    pub search: Option<&'a SearchIndex>,
    pub files: &'a dyn FileSource,
}

/// The notes close in meaning, or why there are none.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Meaning {
    /// With their similarity.
    pub close: Vec<(NoteId, f64)>,
    /// Why finding by meaning is unavailable, when the agent should know.
    pub unavailable: Option<String>,
}

/// What is related.
#[derive(Debug, Clone, PartialEq)]
pub struct Found {
    /// The note asked about, if not a text.
    pub note: Option<NoteId>,
    /// Best first.
    pub related: Vec<Related>,
    pub remarks: Vec<Remark>,
}

/// Why the answer lacks a signal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Remark {
    /// The full-text index is being built: no text similarity.
    Indexing,
    /// Finding by meaning is unavailable, and why.
    NoMeaning(String),
}

/// The notes related to the query's subject.
pub fn compute(
    index: &VaultIndex,
    access: &Access,
    sources: &Sources,
    meaning: &Meaning,
    query: &Query,
) -> Found {
    let mut remarks = Vec::new();
    if sources.search.is_none() {
        remarks.push(Remark::Indexing);
    }
    if let Some(why) = &meaning.unavailable {
        remarks.push(Remark::NoMeaning(why.clone()));
    }
    let sight = access.sight(index);
    let sees = |id: NoteId| sight.matches(index, id, &FileMeta::default());
    let related = related(
        index,
        sources.search,
        sources.files,
        query.subject,
        &meaning.close,
        query.limit,
        &sees,
    );
    Found {
        note: match query.subject {
            Subject::Note(id) => Some(id),
            Subject::Text(_) => None,
        },
        related,
        remarks,
    }
}
