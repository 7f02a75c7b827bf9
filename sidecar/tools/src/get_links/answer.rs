//! What `get_links` answers: its choices of direction and format, and the
//! links as the structured content the client gets.

use schemars::JsonSchema;
use serde::Serialize;

use crate::args::choice;
use crate::common::NoteRef;

choice! {
    pub enum LinkDirection {
        In = "in" | "incoming" | "backlinks" | "back",
        Out = "out" | "outgoing" | "outlinks" | "forward",
        Both = "both" | "all",
    }
}

choice! {
    pub enum LinksFormat {
        List = "list",
        // names: the notes only, each with its count of links.
        Names = "names" | "paths" | "notes",
        Graph = "graph" | "nodes",
    }
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct GetLinksOut {
    pub note: LinkedNote,
    pub direction: LinkDirection,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub incoming: Option<Vec<LinkIn>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub incoming_total: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub outgoing: Option<Vec<LinkOut>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub outgoing_total: Option<usize>,
    /// Notes reached within `depth` steps (depth > 1).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reached: Option<Vec<Reached>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub graph: Option<GraphOut>,
    /// The walk stopped at `limit` nodes.
    pub truncated: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct LinkedNote {
    /// Vault path without `.md`, or the link target of a note not written yet.
    pub path: String,
    pub title: String,
    pub exists: bool,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct LinkIn {
    pub from: NoteRef,
    /// 1-based.
    pub line: u32,
    pub context: String,
    /// The frontmatter key of a typed link.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rel: Option<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct LinkOut {
    /// The target as written.
    pub target: String,
    /// note, ambiguous, attachment, unresolved or self.
    pub status: String,
    /// The note or file it resolves to.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub to: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fragment: Option<String>,
    /// Whether the heading or block the fragment names exists.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fragment_found: Option<bool>,
    pub line: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rel: Option<String>,
    pub embed: bool,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct Reached {
    pub path: String,
    pub title: String,
    pub exists: bool,
    pub distance: u32,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct GraphOut {
    pub nodes: Vec<GraphNodeOut>,
    pub edges: Vec<GraphEdge>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct GraphNodeOut {
    /// Index in `nodes`, used by edges.
    pub id: usize,
    pub path: String,
    pub title: String,
    pub exists: bool,
    pub distance: u32,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct GraphEdge {
    pub from: usize,
    pub to: usize,
    /// Links making the edge.
    pub links: u32,
}
