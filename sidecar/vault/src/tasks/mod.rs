//! Tasks: checklist items as the Obsidian Tasks plugin reads and writes them.

pub mod recur;
