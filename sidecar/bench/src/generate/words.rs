//! The words, names and random draws generated notes are made of.

use fastrand::Rng;

#[rustfmt::skip]
pub(super) const PROSE: &[&str] = &[
    "the", "a", "of", "and", "to", "in", "is", "that", "it", "for", "on", "with", "as", "this",
    "by", "be", "are", "from", "at", "or", "an", "was", "not", "but", "we", "can", "which", "one",
    "all", "more", "when", "there", "about", "so", "what", "some", "into", "than", "then", "only",
    "also", "how", "most", "other", "new", "time", "work", "idea", "note", "system", "process",
    "memory", "structure", "question", "answer", "problem", "result", "method", "practice",
    "example", "pattern", "context", "project", "meeting", "decision", "plan", "draft", "review",
    "research", "paper", "book", "chapter", "argument", "evidence", "theory", "model", "data",
    "garden", "habit", "focus", "attention", "writing", "reading", "learning", "thinking",
    "knowledge", "link", "graph", "network", "index", "archive", "inbox", "task", "deadline",
    "budget", "team", "client", "design", "feedback", "prototype", "release", "version", "change",
    "history", "future", "past", "present", "morning", "evening", "week", "month", "year",
    "important", "useful", "simple", "complex", "clear", "open", "small", "large", "early", "late",
    "quickly", "slowly", "often", "rarely", "usually", "perhaps", "probably", "certainly", "really",
    "still", "already", "again", "together", "between", "through", "during", "without", "because",
    "although", "while", "after", "before", "under", "over", "around", "against", "make", "take",
    "find", "keep", "write", "read", "build", "connect", "collect", "remember", "forget", "explain",
    "compare", "improve", "reduce", "increase", "follow", "start", "finish", "consider", "suggest",
    "notice", "describe", "discover", "organise", "summarise", "revisit", "café", "naïve", "über",
    "déjà", "vu", "résumé", "façade", "coöperation", "smörgåsbord",
];

#[rustfmt::skip]
pub(super) const ADJECTIVES: &[&str] = &[
    "deep", "slow", "quick", "open", "hidden", "simple", "complex", "daily", "weekly", "annual",
    "personal", "shared", "public", "private", "modern", "ancient", "digital", "analog", "linked",
    "atomic", "evergreen", "fleeting", "literature", "permanent", "creative", "critical",
    "practical", "theoretical", "quiet", "noisy", "small", "large", "early", "late", "first",
    "last", "better", "minimal", "robust", "fragile", "local", "global", "urban", "rural",
    "spiritual", "financial", "healthy", "mindful", "structured", "emergent", "random", "stable",
    "distributed", "incremental", "iterative", "visual", "verbal", "mental", "physical", "social",
];

#[rustfmt::skip]
pub(super) const NOUNS: &[&str] = &[
    "work", "notes", "memory", "garden", "habits", "focus", "attention", "writing", "reading",
    "learning", "thinking", "knowledge", "systems", "graph", "network", "archive", "inbox", "tasks",
    "budget", "team", "clients", "design", "feedback", "prototype", "release", "history", "future",
    "morning routine", "evening review", "retrospective", "meeting", "decisions", "planning",
    "research", "papers", "books", "chapters", "arguments", "evidence", "theory", "models", "data",
    "sleep", "exercise", "nutrition", "travel", "recipes", "cooking", "music", "photography",
    "painting", "poetry", "philosophy", "psychology", "economics", "biology", "physics",
    "chemistry", "mathematics", "statistics", "programming", "rust", "databases", "compilers",
    "editors", "typography", "productivity", "motivation", "procrastination", "creativity",
    "collaboration", "leadership", "negotiation", "communication", "onboarding", "hiring",
    "interviews", "strategy", "roadmap", "okrs", "metrics", "experiments", "hypotheses",
    "questions", "answers", "ideas", "principles", "patterns", "anti-patterns", "checklists",
    "templates", "workflows", "pipelines", "infrastructure", "security", "privacy", "ethics",
    "language", "grammar", "vocabulary", "etymology", "maps", "cities", "rivers", "mountains",
    "gardening", "composting", "beekeeping", "coffee", "tea", "bread", "fermentation", "investing",
    "taxes", "insurance", "health", "family", "friends", "parenting", "education", "career",
    "goals", "values", "journaling", "meditation", "stoicism", "zettelkasten",
];

/// Words that make a name non-ASCII; one is decomposed (NFD) on purpose.
#[rustfmt::skip]
pub(super) const EXOTIC: &[&str] = &[
    "Café", "Über", "naïve", "Ångström", "東京", "日本語", "Москва", "Ελλάδα", "São Paulo", "Zürich",
    "crème brûlée", "piñata", "Kraków", "Cafe\u{301} society", "Øresund", "İstanbul",
];

#[rustfmt::skip]
pub(super) const EMOJI: &[&str] = &["🚀", "🌱", "📚", "✨", "🧠", "🎯"];

#[rustfmt::skip]
pub(super) const FOLDER_NAMES: &[&str] = &[
    "Projects", "Areas", "Resources", "Archive", "Meetings", "People",
    "Zettelkasten", "Inbox", "Ideas", "Research", "Recipes", "Travel", "Work", "Personal", "Books",
    "Papers", "Clients", "Reading list", "Ideen für später", "Journal", "Literature notes",
    "Permanent", "2023", "2024", "Q1", "Q2", "Alpha", "Beta", "Drafts", "Курсы", "Écriture",
    "Health", "Finance", "Home", "Talks", "Courses", "Maps of content", "Sources", "Team", "Ops",
];

#[rustfmt::skip]
pub(super) const HEADINGS: &[&str] = &[
    "Overview", "Summary", "Background", "Open questions", "Next steps", "References", "Notes",
    "Ideas", "Details", "Context", "Key points", "Decision", "Log", "Tasks", "Links", "Related",
    "Quotes", "Thoughts", "Résumé", "Design", "Motivation", "Problem", "Approach", "Results",
    "Discussion", "Action items", "Agenda", "Attendees", "Highlights", "Takeaways", "Sources",
    "Examples", "Counterarguments", "Definitions", "History", "Timeline", "Risks", "Costs",
    "What went well", "What to improve", "Über das Thema", "Zusammenfassung", "まとめ",
];

#[rustfmt::skip]
pub(super) const TAGS: &[&str] = &[
    "project", "idea", "todo", "book", "meeting", "status/active", "status/done", "status/waiting",
    "area/health", "area/finance", "area/work", "type/literature", "type/permanent",
    "type/fleeting", "project/weft", "project/garden", "project/house", "to-read", "review",
    "person", "inbox", "moc", "evergreen", "draft", "question", "quote", "research/ml",
    "research/ml/transformers", "research/biology", "lang/rust", "lang/日本語", "café", "travel/2024",
    "recipe", "habit", "goal/2024", "reference", "howto", "journal", "Ideas", "TODO",
    "Project/Weft",
];

/// Values of the `status` property, the most used first.
#[rustfmt::skip]
pub(super) const STATUSES: &[&str] = &[
    "active", "done", "waiting", "someday", "blocked", "review", "idea", "archived", "cancelled",
];

/// Values of the free-text `author` property.
#[rustfmt::skip]
pub(super) const AUTHORS: &[&str] = &[
    "Ada Lovelace", "Niklas Luhmann", "Vannevar Bush", "Ted Nelson", "Andy Matuschak",
    "Sönke Ahrens", "Tiago Forte", "Cal Newport", "Donald Knuth", "Barbara Liskov",
    "Grace Hopper", "Alan Kay", "Douglas Engelbart", "Maggie Appleton", "Paul Graham",
    "Richard Hamming", "Edsger Dijkstra", "Frances Allen", "me", "team",
];

#[rustfmt::skip]
pub(super) const CODE_LANGS: &[&str] = &["rust", "python", "js", "bash", "", "yaml", "sql"];

/// What Markdown links percent-encode besides non-ASCII.
pub(super) const SPACES_AND_CONTROLS: &percent_encoding::AsciiSet =
    &percent_encoding::CONTROLS.add(b' ');

pub(super) const ATTACHMENT_FOLDER: &str = "attachments";

pub(super) const FIXED_ATTACHMENTS: &[&str] = &[
    "image.png",
    "diagram.png",
    "Screenshot 2024-03-05 at 10.22.31.png",
    "scan 001.pdf",
    "photo café.jpg",
];

/// A well-mixed 64-bit seed from a seed, a stream and an index (splitmix64).
pub(super) fn mix(seed: u64, stream: u64, index: u64) -> u64 {
    let mut z = seed
        ^ stream.wrapping_mul(0xD1B5_4A32_D192_ED03)
        ^ index.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A rank in `0..n` with P(rank = k) roughly ∝ 1/(k+1) (Zipf, s = 1).
pub(super) fn zipf(rng: &mut Rng, n: usize) -> usize {
    let x = (n as f64 + 1.0).powf(rng.f64()) - 1.0;
    (x as usize).min(n.saturating_sub(1))
}

/// A standard normal variate (Box–Muller).
pub(super) fn normal(rng: &mut Rng) -> f64 {
    let u1 = 1.0 - rng.f64();
    let u2 = rng.f64();
    (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
}

pub(super) fn pick<'a>(rng: &mut Rng, list: &[&'a str]) -> &'a str {
    list[rng.usize(..list.len())]
}

pub(super) fn capitalize(s: &str) -> String {
    let mut chars = s.chars();
    match chars.next() {
        Some(c) => c.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

pub(super) fn title_case(s: &str) -> String {
    s.split(' ').map(capitalize).collect::<Vec<_>>().join(" ")
}

/// A note name as people write them.
pub(super) fn note_name(rng: &mut Rng) -> String {
    let r = rng.f64();
    let name = if r < 0.30 {
        format!("{} {}", pick(rng, ADJECTIVES), pick(rng, NOUNS))
    } else if r < 0.55 {
        format!(
            "{} {} {}",
            pick(rng, ADJECTIVES),
            pick(rng, NOUNS),
            pick(rng, NOUNS)
        )
    } else if r < 0.70 {
        let joiner = pick(rng, &["of", "and", "for", "in", "vs"]);
        format!("{} {joiner} {}", pick(rng, NOUNS), pick(rng, NOUNS))
    } else if r < 0.80 {
        format!("notes on {} {}", pick(rng, ADJECTIVES), pick(rng, NOUNS))
    } else if r < 0.88 {
        format!("{} {}", pick(rng, NOUNS), rng.u32(1..400))
    } else if r < 0.93 {
        format!(
            "{} {} {}",
            pick(rng, EXOTIC),
            pick(rng, NOUNS),
            rng.u32(1..50)
        )
    } else if r < 0.95 {
        format!(
            "{} {} {}",
            pick(rng, EMOJI),
            pick(rng, ADJECTIVES),
            pick(rng, NOUNS)
        )
    } else {
        format!(
            "{}-{}-{:04}",
            pick(rng, NOUNS).replace(' ', "-"),
            pick(rng, ADJECTIVES),
            rng.u32(0..10000)
        )
    };
    match rng.u8(0..10) {
        0..=4 => capitalize(&name),
        5..=7 => title_case(&name),
        _ => name,
    }
}

/// `YYYY-MM-DD` of a day counted from 2021-01-01 (day 18,628 since
/// 1970-01-01).
pub(super) fn date(day: u32) -> String {
    let date = weft_vault::daily::Date::from_days(18_628 + i64::from(day));
    weft_vault::daily::format_date(date, "YYYY-MM-DD")
}

pub(super) fn block_id(rng: &mut Rng) -> String {
    const ALNUM: &[u8] = b"abcdefghijklmnopqrstuvwxyz0123456789";
    (0..6)
        .map(|_| ALNUM[rng.usize(..ALNUM.len())] as char)
        .collect()
}
