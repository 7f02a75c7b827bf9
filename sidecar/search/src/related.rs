//! Related notes: link proximity (from `vault::related`), shared tags
//! (rarer tags weigh more), text similarity (tantivy more-like-this) and,
//! when the caller has them, similarity of meaning (the semantic index's
//! closest notes), combined into one ranking with the reasons for each.
//!
//! Knows the vault index and the full-text index; must not know any
//! protocol or how answers are worded beyond short reason phrases.

use std::collections::{BTreeSet, HashMap};

use tantivy::collector::TopDocs;
use tantivy::query::{BooleanQuery, MoreLikeThisQuery, Occur, Query};
use tantivy::schema::OwnedValue;

use super::filter::keyword;
use super::index::{FileSource, SearchIndex, body_start, tag_key};
use weft_vault::parse::parse_text;
use weft_vault::related::link_affinity;
use weft_vault::{NoteId, VaultIndex};

/// What to find relatives of.
#[derive(Debug, Clone, Copy)]
pub enum Subject<'a> {
    Note(NoteId),
    /// Free text: its words, `#tags` and `[[links]]` count.
    Text(&'a str),
}

/// One related note.
#[derive(Debug, Clone, PartialEq)]
pub struct Related {
    pub note: NoteId,
    /// 0..=1, the weighted sum of the normalised signals below.
    pub score: f64,
    /// Each signal normalised to 0..=1 over the candidates.
    pub links: f64,
    pub tags: f64,
    pub text: f64,
    pub meaning: f64,
    pub reasons: Vec<String>,
}

/// Weights of links, tags, words and meaning, without and with meaning.
const WEIGHTS: [f64; 4] = [0.5, 0.2, 0.3, 0.0];
const WEIGHTS_WITH_MEANING: [f64; 4] = [0.4, 0.15, 0.2, 0.25];

#[derive(Default)]
struct Signals {
    links: f64,
    tags: f64,
    text: f64,
    meaning: f64,
    reasons: Vec<String>,
}

/// The notes related to `subject`, best first, at most `limit`; only notes
/// the caller `sees` (the agent's access rule) are in it. Without a full-text index only
/// links and tags count.
pub fn related(
    vault: &VaultIndex,
    search: Option<&SearchIndex>,
    files: &dyn FileSource,
    subject: Subject<'_>,
    meaning: &[(NoteId, f64)],
    limit: usize,
    sees: &dyn Fn(NoteId) -> bool,
) -> Vec<Related> {
    let mut found: HashMap<NoteId, Signals> = HashMap::new();
    // Similarities of meaning spread over 0..=1 among the candidates.
    let (low, high) = meaning
        .iter()
        .fold((f64::MAX, f64::MIN), |(l, h), m| (l.min(m.1), h.max(m.1)));
    for &(id, similarity) in meaning {
        let spread = if high > low {
            (similarity - low) / (high - low)
        } else {
            1.0
        };
        found.entry(id).or_default().meaning = spread.max(f64::MIN_POSITIVE);
    }
    let title = |id: NoteId| vault.note(id).title.to_string();
    let list = |ids: &[NoteId]| -> String {
        let mut names: Vec<String> = ids
            .iter()
            .take(3)
            .map(|&i| format!("[[{}]]", title(i)))
            .collect();
        if ids.len() > 3 {
            names.push(format!("{} more", ids.len() - 3));
        }
        names.join(", ")
    };
    let (self_id, tags, text): (Option<NoteId>, Vec<String>, String) = match subject {
        Subject::Note(id) => {
            let note = vault.note(id);
            for (other, a) in link_affinity(vault, id, sees) {
                let s = found.entry(other).or_default();
                s.links = a.score;
                match (a.links_to, a.linked_from) {
                    (true, true) => s.reasons.push("links both ways".into()),
                    (true, false) => s.reasons.push("this note links to it".into()),
                    (false, true) => s.reasons.push("links to this note".into()),
                    _ => {}
                }
                if !a.shared_targets.is_empty() {
                    s.reasons
                        .push(format!("both link to {}", list(&a.shared_targets)));
                }
                if !a.co_cited_by.is_empty() {
                    s.reasons
                        .push(format!("cited together by {}", list(&a.co_cited_by)));
                }
            }
            let tags = note.tags.iter().map(|t| t.name.to_string()).collect();
            let text = files
                .read(&note.path)
                .map(|f| String::from_utf8_lossy(&f.bytes).into_owned())
                .unwrap_or_default();
            (Some(id), tags, text)
        }
        Subject::Text(text) => {
            let parsed = parse_text("related.md", text);
            for link in &parsed.links {
                if let Some(target) = vault.resolve("", link.target(), link.kind).note() {
                    let s = found.entry(target).or_default();
                    if s.links == 0.0 {
                        s.links = 1.0;
                        s.reasons.push("mentioned in the text".into());
                    }
                }
            }
            let tags = parsed.tags.iter().map(|t| t.name.to_string()).collect();
            (None, tags, text.to_string())
        }
    };
    if let Some(search) = search {
        tag_signal(vault, search, &tags, &mut found);
        text_signal(vault, search, &text, self_id, &mut found);
    } else {
        tag_signal_without_index(vault, &tags, &mut found);
    }
    if let Some(id) = self_id {
        found.remove(&id);
    }
    found.retain(|id, _| sees(*id));
    let max = |f: fn(&Signals) -> f64| {
        found
            .values()
            .map(f)
            .fold(0.0_f64, f64::max)
            .max(f64::MIN_POSITIVE)
    };
    let (max_links, max_tags, max_text) = (max(|s| s.links), max(|s| s.tags), max(|s| s.text));
    let [w_links, w_tags, w_text, w_meaning] = if meaning.is_empty() {
        WEIGHTS
    } else {
        WEIGHTS_WITH_MEANING
    };
    let mut out: Vec<Related> = found
        .into_iter()
        .map(|(note, s)| {
            let (links, tags, text) = (s.links / max_links, s.tags / max_tags, s.text / max_text);
            Related {
                note,
                score: w_links * links + w_tags * tags + w_text * text + w_meaning * s.meaning,
                links,
                tags,
                text,
                meaning: s.meaning,
                reasons: s.reasons,
            }
        })
        .filter(|r| r.score > 0.0)
        .collect();
    out.sort_by(|a, b| {
        b.score
            .total_cmp(&a.score)
            .then_with(|| vault.note(a.note).path.cmp(&vault.note(b.note).path))
    });
    out.truncate(limit);
    out
}

/// Shared tags through the full-text index: BM25 over tag terms weighs
/// rare tags above common ones.
fn tag_signal(
    vault: &VaultIndex,
    search: &SearchIndex,
    tags: &[String],
    found: &mut HashMap<NoteId, Signals>,
) {
    let Some(keys) = tag_keys(tags) else {
        return;
    };
    let query = BooleanQuery::new(
        keys.iter()
            .map(|k| (Occur::Should, keyword(search.fields.tags, k)))
            .collect(),
    );
    let searcher = search.reader.searcher();
    let Ok(docs) = searcher.search(&query, &TopDocs::with_limit(200).order_by_score()) else {
        return;
    };
    for (score, address) in docs {
        let Some(id) = search
            .path_of(&searcher, address)
            .and_then(|p| vault.id_of(&p))
        else {
            continue;
        };
        add_tags(vault, id, &keys, score as f64, found);
    }
}

/// The tags' keys; `None` when there are none to look for.
fn tag_keys(tags: &[String]) -> Option<BTreeSet<String>> {
    let keys: BTreeSet<String> = tags
        .iter()
        .map(|t| tag_key(t))
        .filter(|k| !k.is_empty())
        .collect();
    (!keys.is_empty()).then_some(keys)
}

fn tag_signal_without_index(
    vault: &VaultIndex,
    tags: &[String],
    found: &mut HashMap<NoteId, Signals>,
) {
    let Some(keys) = tag_keys(tags) else {
        return;
    };
    for (id, _) in vault.notes() {
        add_tags(vault, id, &keys, 0.0, found);
    }
}

fn add_tags(
    vault: &VaultIndex,
    id: NoteId,
    keys: &BTreeSet<String>,
    score: f64,
    found: &mut HashMap<NoteId, Signals>,
) {
    let mut shared: Vec<String> = Vec::new();
    for tag in &vault.note(id).tags {
        let key = tag_key(&tag.name);
        if keys.contains(&key) && !shared.iter().any(|s| tag_key(s) == key) {
            shared.push(tag.name.to_string());
        }
    }
    if shared.is_empty() {
        return;
    }
    let s = found.entry(id).or_default();
    s.tags = if score > 0.0 {
        score
    } else {
        shared.len() as f64
    };
    let names: Vec<String> = shared.iter().map(|t| format!("#{t}")).collect();
    s.reasons.push(format!("shared tags {}", names.join(" ")));
}

/// Text similarity: more-like-this over the title and body.
fn text_signal(
    vault: &VaultIndex,
    search: &SearchIndex,
    text: &str,
    self_id: Option<NoteId>,
    found: &mut HashMap<NoteId, Signals>,
) {
    let body = &text[body_start(text)..];
    if body.trim().is_empty() {
        return;
    }
    let searcher = search.reader.searcher();
    let num_docs = searcher.num_docs().max(1);
    let mut fields = vec![(search.fields.body, vec![OwnedValue::Str(body.to_string())])];
    if let Some(id) = self_id {
        fields.push((
            search.fields.title,
            vec![OwnedValue::Str(vault.note(id).title.to_string())],
        ));
    }
    let query = MoreLikeThisQuery::builder()
        .with_min_doc_frequency(1)
        .with_max_doc_frequency((num_docs / 4).max(3))
        .with_min_term_frequency(1)
        .with_max_query_terms(25)
        .with_min_word_length(3)
        .with_max_word_length(30)
        .with_document_fields(fields);
    let query: Box<dyn Query> = Box::new(query);
    let Ok(docs) = searcher.search(&*query, &TopDocs::with_limit(60).order_by_score()) else {
        return;
    };
    let best = docs
        .iter()
        .filter(|(_, a)| {
            self_id.is_none_or(|id| {
                search.path_of(&searcher, *a).as_deref() != Some(&*vault.note(id).path)
            })
        })
        .map(|(s, _)| *s)
        .fold(0.0_f32, f32::max)
        .max(f32::MIN_POSITIVE);
    for (score, address) in docs {
        let Some(id) = search
            .path_of(&searcher, address)
            .and_then(|p| vault.id_of(&p))
        else {
            continue;
        };
        if Some(id) == self_id {
            continue;
        }
        let s = found.entry(id).or_default();
        s.text = score as f64;
        if score / best >= 0.25 {
            s.reasons.push("similar wording".into());
        }
    }
}
