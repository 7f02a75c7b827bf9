//! Finding notes by name: exact path, file name, title, alias, path suffix,
//! then prefix, substring, all-words and fuzzy matches, each with why.
//!
//! Works on the vault index alone (no full text), so it answers while the
//! full-text index is still being built. Must not know any protocol.

use weft_vault::key::{name_key, path_key};
use weft_vault::{NoteId, VaultIndex};

/// One candidate note and why it matched.
#[derive(Debug, Clone, PartialEq)]
pub struct NameMatch {
    pub note: NoteId,
    /// 0..=1; 1 is an exact path.
    pub score: f64,
    pub why: String,
}

/// Notes whose path, file name, title or alias match `input`, best first
/// (ties by path), at most `limit`.
pub fn match_names(index: &VaultIndex, input: &str, limit: usize) -> Vec<NameMatch> {
    let input = input.trim().trim_start_matches("[[").trim_end_matches("]]");
    let input = input.split(['|', '#']).next().unwrap_or(input).trim();
    let wanted = path_key(input.trim_start_matches('/'));
    if wanted.is_empty() {
        return Vec::new();
    }
    let words: Vec<&str> = wanted
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect();
    let mut found: Vec<(NameMatch, &str)> = index
        .notes()
        .filter_map(|(id, note)| {
            let path = path_key(&note.path);
            let stem = path.rsplit('/').next().unwrap_or(&path).to_string();
            let title = name_key(&note.title);
            let aliases: Vec<(String, &str)> =
                note.aliases.iter().map(|a| (name_key(a), &**a)).collect();
            let best = score(&wanted, &words, &path, &stem, &title, &note.title, &aliases)?;
            Some((
                NameMatch {
                    note: id,
                    score: best.0,
                    why: best.1,
                },
                &*note.path,
            ))
        })
        .collect();
    found.sort_by(|a, b| b.0.score.total_cmp(&a.0.score).then_with(|| a.1.cmp(b.1)));
    found.truncate(limit);
    found.into_iter().map(|(m, _)| m).collect()
}

fn score(
    wanted: &str,
    words: &[&str],
    path: &str,
    stem: &str,
    title: &str,
    title_display: &str,
    aliases: &[(String, &str)],
) -> Option<(f64, String)> {
    if path == wanted {
        return Some((1.0, "exact path".into()));
    }
    if stem == wanted {
        return Some((0.97, "file name".into()));
    }
    if title == wanted {
        return Some((0.96, "title".into()));
    }
    if let Some((_, a)) = aliases.iter().find(|(k, _)| k == wanted) {
        return Some((0.95, format!("alias “{a}”")));
    }
    if path.ends_with(&format!("/{wanted}")) {
        return Some((0.93, "path ends with it".into()));
    }
    let ratio = |s: &str| wanted.chars().count() as f64 / s.chars().count().max(1) as f64;
    let mut best: Option<(f64, String)> = None;
    fn consider(best: &mut Option<(f64, String)>, s: f64, why: String) {
        if best.as_ref().is_none_or(|b| s > b.0) {
            *best = Some((s, why));
        }
    }
    for (candidate, label) in [(title, "title"), (stem, "file name")] {
        if candidate.starts_with(wanted) {
            consider(
                &mut best,
                0.85 + 0.08 * ratio(candidate),
                format!("{label} starts with it"),
            );
        } else if candidate.contains(wanted) {
            consider(
                &mut best,
                0.78 + 0.08 * ratio(candidate),
                format!("{label} contains it"),
            );
        }
    }
    for (alias, display) in aliases {
        if alias.contains(wanted) {
            consider(
                &mut best,
                0.77 + 0.08 * ratio(alias),
                format!("alias “{display}” contains it"),
            );
        }
    }
    if path.contains(wanted) {
        consider(
            &mut best,
            0.72 + 0.05 * ratio(path),
            "path contains it".into(),
        );
    }
    if best.is_none() && words.len() > 1 {
        let hay = format!("{path} {title}");
        if words.iter().all(|w| hay.contains(w)) {
            consider(&mut best, 0.7, "has all the words".into());
        }
    }
    if best.is_none() {
        let mut fuzzy = |candidate: &str, label: String| {
            let s = strsim::jaro_winkler(wanted, candidate);
            if s >= 0.84 {
                consider(
                    &mut best,
                    s * 0.8,
                    format!("{label} is similar ({:.0}%)", s * 100.0),
                );
            }
        };
        fuzzy(title, format!("title “{title_display}”"));
        fuzzy(stem, "file name".into());
        for (alias, display) in aliases {
            fuzzy(alias, format!("alias “{display}”"));
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;
    use weft_vault::parse::parse_text;

    fn index() -> VaultIndex {
        let mut index = VaultIndex::new();
        for (path, text) in [
            (
                "projects/wiki-ai/ideas.md",
                "---\naliases: [Brainstorm]\n---\n# Product Ideas",
            ),
            ("projects/roadmap.md", "# Roadmap"),
            ("daily/2024-01-15.md", "# Monday"),
            ("ideas.md", "# Loose ideas"),
        ] {
            index.upsert(parse_text(path, text));
        }
        index
    }

    fn names(index: &VaultIndex, input: &str) -> Vec<(String, String)> {
        match_names(index, input, 10)
            .into_iter()
            .map(|m| (index.note(m.note).id().to_string(), m.why))
            .collect()
    }

    #[test]
    fn ranks_exact_before_partial_before_fuzzy() {
        let index = index();
        assert_eq!(
            names(&index, "ideas"),
            [
                ("ideas".into(), "exact path".into()),
                ("projects/wiki-ai/ideas".into(), "file name".into())
            ]
        );
        assert_eq!(names(&index, "Brainstorm")[0].1, "alias “Brainstorm”");
        assert_eq!(names(&index, "product ideas")[0].1, "title");
        assert_eq!(
            names(&index, "road")[0],
            ("projects/roadmap".into(), "title starts with it".into())
        );
        assert_eq!(names(&index, "wiki-ai/ideas")[0].1, "path ends with it");
        assert_eq!(names(&index, "[[Roadmap|the plan]]")[0].1, "file name");
        let fuzzy = names(&index, "roadmpa");
        assert!(fuzzy[0].1.contains("similar"), "{fuzzy:?}");
        assert!(names(&index, "zzzz").is_empty());
    }
}
