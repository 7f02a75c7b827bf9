//! Writing one generated note from the plan, with its own generator, so
//! notes can be written in parallel in any order.

use std::fmt::Write as _;

use fastrand::Rng;
use unicode_normalization::UnicodeNormalization;

use super::plan::{NotePlan, Plan};
use super::tasks::{Meant, TASK_STREAM, places, task_lists};
use super::words::*;
use weft_vault::key::slug;

pub(super) struct NoteWriter<'p> {
    plan: &'p Plan,
    me: usize,
    rng: Rng,
    /// Whether the typed properties (see [`typed_properties`]) are added to
    /// the frontmatter; off only to check that they change nothing else.
    properties: bool,
    /// Whether task lists (see `tasks.rs`) are put between the blocks.
    tasks: bool,
    /// The tasks put in, as meant.
    pub(super) meant: Vec<Meant>,
    out: String,
    pub(super) links: usize,
    pub(super) unresolved: usize,
    /// Block ids not placed yet.
    blocks_left: Vec<&'p str>,
}

impl<'p> NoteWriter<'p> {
    pub(super) fn new(plan: &'p Plan, me: usize) -> Self {
        let note = &plan.notes[me];
        NoteWriter {
            plan,
            me,
            rng: Rng::with_seed(mix(plan.seed, 2, me as u64)),
            properties: true,
            tasks: true,
            meant: Vec::new(),
            out: String::with_capacity(note.target_size + 512),
            links: 0,
            unresolved: 0,
            blocks_left: note.blocks.iter().map(String::as_str).collect(),
        }
    }

    /// The note as generator version 2 wrote it: no typed properties.
    #[cfg(test)]
    pub(super) fn without_properties(mut self) -> Self {
        self.properties = false;
        self
    }

    /// The note without its tasks: what generator version 3 wrote.
    pub(super) fn without_tasks(mut self) -> Self {
        self.tasks = false;
        self
    }

    fn note(&self) -> &'p NotePlan {
        &self.plan.notes[self.me]
    }

    pub(super) fn write(&mut self) -> String {
        let note = self.note();
        // Where the typed properties go: before the closing fence. They are
        // put in once the body is written, so that the body's length budget
        // (and so every draw of `self.rng`) is what it was without them.
        let mut fence = None;
        if note.frontmatter {
            self.frontmatter();
            fence = Some(self.out.len() - "---\n\n".len());
        }
        let sections = note.headings.len().max(1);
        for s in 0..note.headings.len().max(1) {
            if let Some((level, text)) = note.headings.get(s) {
                if !self.out.is_empty() && !self.out.ends_with("\n\n") {
                    self.out.push('\n');
                }
                for _ in 0..*level {
                    self.out.push('#');
                }
                let _ = write!(self.out, " {text}\n\n");
            }
            let remaining = note.target_size.saturating_sub(self.out.len());
            let budget = self.out.len() + remaining / (sections - s);
            loop {
                self.block();
                if self.out.len() >= budget {
                    break;
                }
            }
        }
        // Block ids that found no paragraph get one each.
        while let Some(id) = self.blocks_left.pop() {
            self.paragraph_with(Some(id));
        }
        // An empty block (`---` twice: no frontmatter to a reader) stays
        // empty, as every note without frontmatter stays without.
        let mut body = fence.map_or(0, |at| at + "---\n\n".len());
        if let Some(at) = fence.filter(|&at| self.properties && at > "---\n".len()) {
            let mut rng = Rng::with_seed(mix(self.plan.seed, PROPERTY_STREAM, self.me as u64));
            let properties = typed_properties(&mut rng);
            body += properties.len();
            self.out.insert_str(at, &properties);
        }
        if self.tasks {
            self.put_tasks(body);
        }
        std::mem::take(&mut self.out)
    }

    /// Puts the note's task lists (from their own generator) after blank
    /// lines of the body, one list a place, the note's blocks unmoved.
    fn put_tasks(&mut self, body: usize) {
        let mut rng = Rng::with_seed(mix(self.plan.seed, TASK_STREAM, self.me as u64));
        let lists = task_lists(&mut rng, &mut self.meant);
        if lists.is_empty() {
            return;
        }
        let mut spots = places(&self.out, body);
        let mut at_end = String::new();
        let mut put: Vec<(usize, String)> = Vec::with_capacity(lists.len());
        for list in lists {
            if spots.is_empty() {
                at_end.push_str(&list.text);
                at_end.push('\n');
            } else {
                let at = spots.swap_remove(rng.usize(..spots.len()));
                put.push((at, list.text + "\n"));
            }
        }
        if !at_end.is_empty() {
            if !self.out.is_empty() && !self.out.ends_with("\n\n") {
                self.out.push('\n');
            }
            self.out.push_str(&at_end);
        }
        put.sort_by_key(|p| std::cmp::Reverse(p.0));
        for (at, text) in put {
            self.out.insert_str(at, &text);
        }
    }

    fn frontmatter(&mut self) {
        let note = self.note();
        let rng = &mut self.rng;
        let out = &mut self.out;
        out.push_str("---\n");
        if let Some(title) = &note.title {
            let _ = writeln!(out, "title: \"{title}\"");
        }
        match note.aliases.as_slice() {
            [] => {}
            [one] if rng.bool() => {
                let _ = writeln!(out, "aliases: \"{one}\"");
            }
            many => {
                out.push_str("aliases:\n");
                for a in many {
                    let _ = writeln!(out, "  - \"{a}\"");
                }
            }
        }
        if rng.f64() < 0.85 {
            let count = rng.usize(1..=4);
            let tags: Vec<&str> = (0..count).map(|_| TAGS[zipf(rng, TAGS.len())]).collect();
            match rng.u8(0..3) {
                0 => {
                    let _ = writeln!(out, "tags: [{}]", tags.join(", "));
                }
                1 => {
                    out.push_str("tags:\n");
                    for t in &tags {
                        let _ = writeln!(out, "  - {t}");
                    }
                }
                _ => {
                    let _ = writeln!(out, "tags: {}", tags.join(", "));
                }
            }
        }
        if rng.f64() < 0.7 {
            let _ = writeln!(out, "created: {}", date(rng.u32(0..1500)));
        }
        if rng.f64() < 0.3 {
            let _ = writeln!(
                out,
                "updated: {}T{:02}:{:02}",
                date(rng.u32(0..1500)),
                rng.u8(0..24),
                rng.u8(0..60)
            );
        }
        if rng.f64() < 0.15 {
            out.push_str("draft: true\n");
        }
        if self.rng.f64() < 0.17 {
            let target = self.target();
            let name = self.wiki_name(target);
            let _ = writeln!(self.out, "related: \"[[{name}]]\"");
            self.links += 1;
        }
        self.out.push_str("---\n\n");
    }

    /// One Markdown block: paragraph, list, code, quote, table or comment.
    fn block(&mut self) {
        match self.rng.u8(0..100) {
            0..=64 => {
                let id = self.maybe_block_id();
                self.paragraph_with(id);
            }
            65..=79 => self.list(),
            80..=85 => self.code_block(),
            86..=91 => self.quote(),
            92..=94 => self.table(),
            95..=96 => {
                self.out
                    .push_str("<!-- [[hidden-link]] a comment #not-a-tag -->\n\n");
            }
            _ => {
                self.out.push_str("---\n\n");
            }
        }
    }

    fn maybe_block_id(&mut self) -> Option<&'p str> {
        if !self.blocks_left.is_empty() && self.rng.f64() < 0.25 {
            self.blocks_left.pop()
        } else {
            None
        }
    }

    fn paragraph_with(&mut self, id: Option<&str>) {
        for _ in 0..self.rng.usize(1..=5) {
            self.sentence();
        }
        if let Some(id) = id {
            let _ = write!(self.out, " ^{id}");
        }
        self.out.push_str("\n\n");
    }

    fn sentence(&mut self) {
        let words = self.rng.usize(5..=18);
        if !self.out.ends_with('\n') && !self.out.is_empty() && !self.out.ends_with(' ') {
            self.out.push(' ');
        }
        for w in 0..words {
            if w > 0 {
                self.out.push(' ');
            }
            let r = self.rng.f64();
            if r < 0.028 {
                self.link();
            } else if r < 0.034 {
                self.inline_tag();
            } else if r < 0.040 {
                let word = pick(&mut self.rng, PROSE);
                let _ = write!(self.out, "**{word}**");
            } else if r < 0.043 {
                self.out.push_str("`[[code-not-a-link]]`");
            } else {
                let word = pick(&mut self.rng, PROSE);
                if w == 0 {
                    self.out.push_str(&capitalize(word));
                } else {
                    self.out.push_str(word);
                }
            }
        }
        self.out.push('.');
    }

    fn inline_tag(&mut self) {
        let tag = TAGS[zipf(&mut self.rng, TAGS.len())];
        let _ = write!(self.out, "#{tag}");
    }

    fn list(&mut self) {
        let task = self.rng.f64() < 0.2;
        let ordered = !task && self.rng.f64() < 0.2;
        for k in 0..self.rng.usize(2..=6) {
            let nested = k > 0 && self.rng.f64() < 0.2;
            if nested {
                self.out.push_str("  ");
            }
            if task {
                self.out
                    .push_str(if self.rng.bool() { "- [ ] " } else { "- [x] " });
            } else if ordered {
                let _ = write!(self.out, "{}. ", k + 1);
            } else {
                self.out.push_str("- ");
            }
            self.sentence();
            if let Some(id) = self.maybe_block_id() {
                let _ = write!(self.out, " ^{id}");
            }
            self.out.push('\n');
        }
        self.out.push('\n');
    }

    fn code_block(&mut self) {
        let lang = pick(&mut self.rng, CODE_LANGS);
        let _ = write!(
            self.out,
            "```{lang}\n// see [[not-a-link]] and [[Fake#Heading|x]] #not-a-tag\nlet x = \
             vec![[1, 2], [3, 4]];\n![[not-an-embed.png]]\n```\n\n"
        );
    }

    fn quote(&mut self) {
        if self.rng.bool() {
            let kind = pick(&mut self.rng, &["note", "tip", "warning", "quote", "info"]);
            let _ = writeln!(self.out, "> [!{kind}] {}", pick(&mut self.rng, HEADINGS));
        }
        self.out.push_str("> ");
        self.sentence();
        self.out.push_str("\n\n");
    }

    fn table(&mut self) {
        self.out
            .push_str("| item | status | notes |\n|---|---|---|\n");
        for _ in 0..self.rng.usize(1..=4) {
            let a = pick(&mut self.rng, NOUNS);
            let b = pick(&mut self.rng, &["done", "open", "blocked", "n/a"]);
            let c = pick(&mut self.rng, PROSE);
            let _ = writeln!(self.out, "| {a} | {b} | {c} |");
        }
        self.out.push('\n');
    }

    /// A link target: Zipf over the hubs, the own folder, or uniform.
    fn target(&mut self) -> usize {
        let n = self.plan.notes.len();
        let r = self.rng.f64();
        let t = if r < 0.5 {
            self.plan.hubs[zipf(&mut self.rng, n)] as usize
        } else if r < 0.65 {
            let siblings = &self.plan.by_folder[self.note().folder];
            siblings[self.rng.usize(..siblings.len())] as usize
        } else {
            self.rng.usize(..n)
        };
        if t == self.me && n > 1 {
            (t + 1 + self.rng.usize(..n - 1)) % n
        } else {
            t
        }
    }

    /// How `[[…]]` names note `t`: its stem (in NFC), sometimes lower-cased.
    fn wiki_name(&mut self, t: usize) -> String {
        let stem: String = self.plan.notes[t].stem.nfc().collect();
        if self.rng.f64() < 0.05 {
            stem.to_lowercase()
        } else {
            stem
        }
    }

    /// `folder/Name` or a unique-looking suffix of it.
    fn path_name(&mut self, t: usize) -> String {
        let note = &self.plan.notes[t];
        let folder = &self.plan.folders[note.folder];
        let stem: String = note.stem.nfc().collect();
        if folder.is_empty() {
            return stem;
        }
        match folder.rfind('/') {
            Some(i) if self.rng.f64() < 0.3 => format!("{}/{stem}", &folder[i + 1..]),
            _ => format!("{folder}/{stem}"),
        }
    }

    /// `#Heading`, `#H1#H2`, or a heading that does not exist (10%).
    fn heading_fragment(&mut self, t: usize) -> Option<String> {
        let headings = &self.plan.notes[t].headings;
        if headings.is_empty() {
            return None;
        }
        if self.rng.f64() < 0.1 {
            return Some("Missing section".to_string());
        }
        let h = self.rng.usize(..headings.len());
        let (level, text) = &headings[h];
        if self.rng.f64() < 0.1
            && let Some((_, child)) = headings.get(h + 1).filter(|(l, _)| l > level)
        {
            return Some(format!("{text}#{child}"));
        }
        if self.rng.f64() < 0.1 {
            return Some(slug(text));
        }
        Some(text.clone())
    }

    fn link(&mut self) {
        self.links += 1;
        let r = self.rng.u16(0..1000);
        let out_before = self.out.len();
        match r {
            // [[Name]]
            0..=389 => {
                let t = self.target();
                let name = self.wiki_name(t);
                let _ = write!(self.out, "[[{name}]]");
            }
            // [[Name|alias]]
            390..=509 => {
                let t = self.target();
                let name = self.wiki_name(t);
                let alias = pick(&mut self.rng, PROSE);
                let _ = write!(
                    self.out,
                    "[[{name}|{alias} {}]]",
                    pick(&mut self.rng, NOUNS)
                );
            }
            // [[Name#Heading]]
            510..=609 => {
                let t = self.target();
                let name = self.wiki_name(t);
                match self.heading_fragment(t) {
                    Some(f) => {
                        let _ = write!(self.out, "[[{name}#{f}]]");
                    }
                    None => {
                        let _ = write!(self.out, "[[{name}]]");
                    }
                }
            }
            // [[Name#^block]]
            610..=659 => {
                let t = self.target();
                let name = self.wiki_name(t);
                let blocks = &self.plan.notes[t].blocks;
                if self.rng.f64() < 0.05 {
                    // A block id that is gone.
                    let _ = write!(self.out, "[[{name}#^{}]]", block_id(&mut self.rng));
                } else if !blocks.is_empty() {
                    let id = &blocks[self.rng.usize(..blocks.len())];
                    let _ = write!(self.out, "[[{name}#^{id}]]");
                } else {
                    match self.heading_fragment(t) {
                        Some(f) => {
                            let _ = write!(self.out, "[[{name}#{f}]]");
                        }
                        None => {
                            let _ = write!(self.out, "[[{name}]]");
                        }
                    }
                }
            }
            // [[#Local heading]] and [[#^block]]
            660..=709 => {
                let note = self.note();
                if !note.blocks.is_empty() && self.rng.f64() < 0.3 {
                    let id = &note.blocks[self.rng.usize(..note.blocks.len())];
                    let _ = write!(self.out, "[[#^{id}]]");
                } else if let Some(f) = self.heading_fragment(self.me) {
                    let _ = write!(self.out, "[[#{f}]]");
                } else {
                    let t = self.target();
                    let name = self.wiki_name(t);
                    let _ = write!(self.out, "[[{name}]]");
                }
            }
            // ![[Name]], ![[Name#Heading]]
            710..=749 => {
                let t = self.target();
                let name = self.wiki_name(t);
                match self.heading_fragment(t).filter(|_| self.rng.f64() < 0.3) {
                    Some(f) => {
                        let _ = write!(self.out, "![[{name}#{f}]]");
                    }
                    None => {
                        let _ = write!(self.out, "![[{name}]]");
                    }
                }
            }
            // [[folder/Name]]
            750..=819 => {
                let t = self.target();
                let path = self.path_name(t);
                let _ = write!(self.out, "[[{path}]]");
            }
            // [text](relative/path/Name.md)
            820..=899 => self.markdown_link(),
            // Attachments.
            900..=929 => {
                let attachments = &self.plan.attachments;
                let path = &attachments[zipf(&mut self.rng, attachments.len())];
                let name = path.rsplit('/').next().unwrap_or(path);
                if self.rng.f64() < 0.8 {
                    let _ = write!(self.out, "![[{name}]]");
                } else {
                    let rel = relative(&self.plan.folders[self.note().folder], path);
                    let _ = write!(self.out, "![figure]({})", rel.replace(' ', "%20"));
                }
            }
            // By alias.
            930..=969 => {
                let with = &self.plan.with_aliases;
                if with.is_empty() {
                    let t = self.target();
                    let name = self.wiki_name(t);
                    let _ = write!(self.out, "[[{name}]]");
                } else {
                    let t = with[zipf(&mut self.rng, with.len())] as usize;
                    let aliases = &self.plan.notes[t].aliases;
                    let alias = &aliases[self.rng.usize(..aliases.len())];
                    let _ = write!(self.out, "[[{alias}]]");
                }
            }
            // Unresolved: names no note has.
            _ => {
                self.unresolved += 1;
                let missing = &self.plan.missing;
                let name = &missing[zipf(&mut self.rng, missing.len())];
                let _ = write!(self.out, "[[{name}]]");
            }
        }
        debug_assert!(self.out.len() > out_before);
    }

    /// `[text](../path/to/Name.md)`, relative to this note's folder, with
    /// spaces as `%20` (sometimes all non-ASCII encoded, or `<…>` form).
    fn markdown_link(&mut self) {
        let t = self.target();
        let note = &self.plan.notes[t];
        let target_path = match note.folder {
            0 => format!("{}.md", note.stem),
            f => format!("{}/{}.md", self.plan.folders[f], note.stem),
        };
        let rel = relative(&self.plan.folders[self.note().folder], &target_path);
        let text = capitalize(&format!(
            "{} {}",
            pick(&mut self.rng, ADJECTIVES),
            pick(&mut self.rng, NOUNS)
        ));
        let fragment = match self.rng.u8(0..10) {
            0 => note.headings.first().map(|(_, h)| format!("#{}", slug(h))),
            _ => None,
        }
        .unwrap_or_default();
        match self.rng.u8(0..10) {
            0 => {
                let _ = write!(self.out, "[{text}](<{rel}{fragment}>)");
            }
            1..=3 => {
                let encoded = percent_encoding::utf8_percent_encode(&rel, SPACES_AND_CONTROLS);
                let _ = write!(self.out, "[{text}]({encoded}{fragment})");
            }
            _ => {
                let _ = write!(self.out, "[{text}]({}{fragment})", rel.replace(' ', "%20"));
            }
        }
    }
}

/// The stream of the generators of typed properties, apart from the
/// note's own (stream 2) so that adding properties moves no other draw.
const PROPERTY_STREAM: u64 = 0x7E9E_D960;

/// Frontmatter lines of one property of each Obsidian type besides those
/// [`NoteWriter::frontmatter`] writes (tags, aliases, date, date & time,
/// a `true` checkbox, a link): text with few values (`status`, Zipf-like)
/// and free text (`author`), numbers (`rating`, `priority`, `estimate`), a
/// list (`topics`, block or flow style), a `due` date and a checkbox that
/// is `true` or `false` (`done`). Each is there in some notes only.
fn typed_properties(rng: &mut Rng) -> String {
    let mut out = String::new();
    if rng.f64() < 0.55 {
        let _ = writeln!(out, "status: {}", STATUSES[zipf(rng, STATUSES.len())]);
    }
    if rng.f64() < 0.2 {
        let _ = writeln!(out, "author: {}", AUTHORS[zipf(rng, AUTHORS.len())]);
    }
    if rng.f64() < 0.25 {
        let _ = writeln!(out, "rating: {}", rng.u8(1..=5));
    }
    if rng.f64() < 0.3 {
        let _ = writeln!(out, "priority: {}", rng.u8(1..=4));
    }
    if rng.f64() < 0.15 {
        // Halves of an hour up to a day: `0.5`, `1`, `1.5`…
        let _ = writeln!(out, "estimate: {}", f64::from(rng.u8(1..=16)) / 2.0);
    }
    if rng.f64() < 0.35 {
        let count = rng.usize(1..=4);
        let topics: Vec<&str> = (0..count).map(|_| NOUNS[zipf(rng, NOUNS.len())]).collect();
        if rng.bool() {
            let _ = writeln!(out, "topics: [{}]", topics.join(", "));
        } else {
            out.push_str("topics:\n");
            for t in &topics {
                let _ = writeln!(out, "  - {t}");
            }
        }
    }
    if rng.f64() < 0.2 {
        let _ = writeln!(out, "due: {}", date(rng.u32(900..1800)));
    }
    if rng.f64() < 0.3 {
        let _ = writeln!(out, "done: {}", rng.f64() < 0.4);
    }
    out
}

/// The path of vault path `to` relative to folder `from`.
fn relative(from: &str, to: &str) -> String {
    let from: Vec<&str> = from.split('/').filter(|p| !p.is_empty()).collect();
    let to: Vec<&str> = to.split('/').collect();
    let (to_dirs, file) = to.split_at(to.len() - 1);
    let common = from.iter().zip(to_dirs).take_while(|(a, b)| a == b).count();
    let mut out = String::new();
    for _ in common..from.len() {
        out.push_str("../");
    }
    for dir in &to_dirs[common..] {
        out.push_str(dir);
        out.push('/');
    }
    out.push_str(file[0]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_paths() {
        assert_eq!(relative("", "a/b.md"), "a/b.md");
        assert_eq!(relative("a", "a/b.md"), "b.md");
        assert_eq!(relative("a/c", "a/b.md"), "../b.md");
        assert_eq!(relative("x/y", "a/b c.md"), "../../a/b c.md");
        assert_eq!(date(0), "2021-01-01");
        assert_eq!(date(59), "2021-03-01");
    }
}
