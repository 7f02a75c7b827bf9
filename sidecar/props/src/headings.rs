//! `headings`: heading paths and sections on any note. Each heading's
//! section lies inside the text on character boundaries, inside its
//! parent's; its full path is the same whichever way it is asked for and
//! names it, as a tool's `section` (`A::B`) and as a link's fragment
//! (`A#B`), unless another heading has the same path (then both are
//! candidates); the section an edit finds is that heading's. Any other
//! section or fragment string gives an answer or an error, never a panic.

use weft_vault::edit::{EditError, find_section};
use weft_vault::headings::{
    SectionError, heading_path, heading_paths, parents, resolve_section, section_parts,
};
use weft_vault::parse::parse_text;
use weft_vault::resolve::{FragmentTarget, lookup_fragment};
use weft_vault::symbols::heading_tree;

use crate::input::{Pick, choices, split};

pub fn headings(data: &[u8]) {
    let (text, mut u) = split(data);
    let note = parse_text("fuzz.md", &text);
    let paths = heading_paths(&note, "::");
    let parents = parents(&note);
    let _ = heading_tree(&note);
    for (i, heading) in note.headings.iter().enumerate() {
        assert_eq!(heading_path(&note, i, "::"), paths[i], "heading {i}'s path");
        let section = note.section_span(i);
        let range = section.start as usize..section.end as usize;
        assert!(
            text.get(range.clone()).is_some() && section.start == heading.span.start,
            "heading {i}'s section {range:?} in a text of {} bytes",
            text.len()
        );
        if let Some(parent) = parents[i] {
            let outer = note.section_span(parent);
            assert!(
                outer.start <= section.start && section.end <= outer.end,
                "heading {i}'s section {section:?} is not inside its parent's {outer:?}"
            );
        }
        // The texts from the top-level ancestor down to this heading.
        let mut chain = vec![i];
        while let Some(p) = parents[*chain.last().expect("not empty")] {
            chain.push(p);
        }
        chain.reverse();
        let texts: Vec<&str> = chain.iter().map(|&h| &*note.headings[h].text).collect();
        if section_parts(&paths[i]) == texts {
            let same: Vec<usize> = (0..paths.len()).filter(|&j| paths[j] == paths[i]).collect();
            match resolve_section(&note, &paths[i]) {
                Ok(found) => assert!(
                    found == i || same.len() > 1 && same.contains(&found),
                    "section `{}` names heading {found}, not {i}",
                    paths[i]
                ),
                Err(SectionError::Ambiguous { candidates, .. }) => assert!(
                    candidates.iter().any(|c| c.line == heading.line + 1),
                    "heading {i} is not among the candidates for `{}`",
                    paths[i]
                ),
                Err(error) => panic!("section `{}` of heading {i}: {error}", paths[i]),
            }
        }
        let fragment = texts.join("#");
        // A fragment names headings by non-empty parts without `#`.
        if texts
            .iter()
            .all(|t| !t.is_empty() && !t.contains('#') && *t == t.trim())
            && !fragment.starts_with('^')
        {
            let lookup = lookup_fragment(&note, &fragment);
            assert!(
                lookup.target == FragmentTarget::Heading(i) || lookup.ambiguous.contains(&i),
                "fragment `{fragment}` leads to {:?}, not heading {i}",
                lookup.target
            );
        }
        check_section(&text, &note, &paths[i]);
    }
    for pick in choices::<Pick>(&mut u, 4) {
        let asked = pick.get(&text);
        check_section(&text, &note, &asked);
        let _ = lookup_fragment(&note, &asked);
    }
}

/// The section an edit finds for `section` is the heading the resolver
/// names, its body on character boundaries after the heading's line.
fn check_section(text: &str, note: &weft_vault::Note, section: &str) {
    let resolved = resolve_section(note, section);
    let found = find_section(text, section);
    match (&resolved, &found) {
        (Ok(i), Ok(s)) => {
            let heading = &note.headings[*i];
            assert_eq!(
                s.heading_start, heading.span.start as usize,
                "the section's heading"
            );
            assert!(
                s.heading_start <= s.body.start
                    && s.body.start <= s.body.end
                    && text.get(s.body.clone()).is_some(),
                "section `{section}` at {s:?} in a text of {} bytes",
                text.len()
            );
            assert!(
                s.body.start == text.len()
                    || weft_vault::lines::line_start_at(text, s.body.start) == s.body.start,
                "the body of `{section}` does not start a line: {s:?}"
            );
        }
        (Err(a), Err(EditError::Section(b))) => assert_eq!(a, b, "the errors differ"),
        _ => panic!("the resolver says {resolved:?}, the edit finds {found:?}"),
    }
}
