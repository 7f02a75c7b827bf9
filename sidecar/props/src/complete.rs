//! `complete_context`: what is being typed, asked at every byte offset of
//! any text (inside characters and past the end too). The range a
//! completion replaces lies on the cursor's line, around the cursor, on
//! character boundaries; what was typed is the text from its start to the
//! cursor (for a Markdown path, once percent-decoded).

use weft_vault::complete::{Context, context};

use crate::input::{floor, lossy};

/// Every offset is asked, each at the cost of its line: texts are kept
/// short.
const MAX_TEXT: usize = 4 << 10;

pub fn complete_context(data: &[u8]) {
    let text = lossy(data, MAX_TEXT);
    for offset in 0..=text.len() + 1 {
        let Some(found) = context(&text, offset) else {
            continue;
        };
        let cursor = floor(&text, offset);
        let (replace, typed) = match &found {
            Context::Note { typed, link }
            | Context::Heading { typed, link, .. }
            | Context::Block { typed, link, .. } => (link.replace.clone(), Some(typed)),
            Context::Tag { typed, replace }
            | Context::PropertyKey { typed, replace, .. }
            | Context::PropertyValue { typed, replace, .. }
            | Context::TaskDate { typed, replace, .. } => (replace.clone(), Some(typed)),
            Context::MarkdownPath { replace, .. } => (replace.clone(), None),
        };
        let Some(replaced) = text.get(replace.clone()) else {
            panic!("at {offset}: {found:?} replaces bytes off the text's character boundaries");
        };
        assert!(
            replace.start <= cursor && cursor <= replace.end && !replaced.contains('\n'),
            "at {offset}: {found:?} does not replace around the cursor on its line"
        );
        if let Some(typed) = typed {
            assert_eq!(
                typed,
                &text[replace.start..cursor],
                "at {offset}: what was typed"
            );
        }
    }
}
