//! Test fixtures written inline, as rust-analyzer writes them: a line
//! `//- /path` starts a file (`//- /path @SECONDS` also gives its modified
//! time), the lines after it are its text. Indentation that every line of
//! the fixture's files shares (a fixture indented with the test's code) is
//! not part of the text. Parsing only: writing the files is the
//! workspace's (`weft_workspace::fixture`). Built for tests alone.

/// One file of a fixture.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct File {
    /// The vault path, `/`-separated, without the leading `/`.
    pub path: String,
    pub text: String,
    /// `@SECONDS` after the path: its modified time (Unix seconds).
    pub time: Option<i64>,
}

/// The files of a fixture, in order.
pub fn files(src: &str) -> Vec<File> {
    let is_header = |line: &str| line.trim_start().starts_with("//- /");
    let indent = src
        .lines()
        .filter(|line| !line.trim().is_empty() && !is_header(line))
        .map(|line| line.len() - line.trim_start_matches(' ').len())
        .min()
        .unwrap_or(0);
    let mut out: Vec<File> = Vec::new();
    for line in src.split_inclusive('\n') {
        if let Some(head) = line.trim_start().strip_prefix("//- /") {
            let head = head.trim();
            let (path, time) = match head.split_once(" @") {
                Some((path, time)) => (path, time.trim().parse().ok()),
                None => (head, None),
            };
            out.push(File {
                path: path.to_string(),
                text: String::new(),
                time,
            });
        } else if let Some(file) = out.last_mut() {
            let cut = line.len() - line.trim_start_matches(' ').len();
            file.text.push_str(&line[cut.min(indent)..]);
        }
    }
    out
}

/// The index of a fixture's files: `.md` paths are notes, parsed; any
/// other path is an attachment.
pub fn index(src: &str) -> crate::VaultIndex {
    let mut index = crate::VaultIndex::new();
    for file in files(src) {
        if crate::note::is_note_path(&file.path) {
            index.upsert(crate::parse::parse_text(&file.path, &file.text));
        } else {
            index.add_attachment(&file.path);
        }
    }
    index
}
