//! The plugin's reading of a task's text, from its documented examples
//! (`docs/Reference/Task Formats/*.md`) and the behaviours its serializer
//! shows (`src/TaskSerializer/DefaultTaskSerializer.ts`).

use super::*;

/// `text` read: the description, then each field as `kind=value`
/// (leftmost first), then the block id.
fn show(text: &str) -> String {
    let f = read(text);
    let mut out = format!("{:?}", f.description);
    let mut fields: Vec<&Field> = f.fields.iter().collect();
    fields.sort_by_key(|f| f.span.start);
    for field in fields {
        let format = match field.format {
            Format::Emoji => "",
            Format::Dataview => "dv:",
        };
        out += &format!(" {format}{:?}={}", field.kind, &text[field.value.clone()]);
        assert!(text[field.span.clone()].contains(&text[field.value.clone()]));
    }
    if let Some(block) = f.block {
        out += &format!(" block={}", &text[block]);
    }
    out
}

#[test]
fn emoji_fields_from_the_end_in_any_order() {
    let cases = [
        (
            " #task Has a due date 📅 2023-04-16",
            r##""#task Has a due date" Due=2023-04-16"##,
        ),
        (
            " do it ⏫ 🔁 every week on Sunday 📅 2021-04-25",
            r##""do it" Priority=⏫ Recurrence=every week on Sunday Due=2021-04-25"##,
        ),
        // Any order: the loop takes whatever ends the line.
        (
            " do it 📅 2021-04-25 ⏫ ➕ 2021-04-01",
            r##""do it" Due=2021-04-25 Priority=⏫ Created=2021-04-01"##,
        ),
        // No space between emoji and value, a variation selector after it.
        (
            " a 📅2021-04-25 ⏳\u{fe0f} 2021-04-20",
            r##""a" Due=2021-04-25 Scheduled=2021-04-20"##,
        ),
        // The alternative emoji.
        (" a 📆 2021-04-25", r##""a" Due=2021-04-25"##),
        (" a 🗓 2021-04-25", r##""a" Due=2021-04-25"##),
        (" a ⌛ 2021-04-25", r##""a" Scheduled=2021-04-25"##),
        // A field left of ordinary words is text (issue #1505).
        (
            " a 📅 2021-04-25 then more",
            r##""a 📅 2021-04-25 then more""##,
        ),
        // Tags among the fields go back to the description, at its end.
        (
            " do #one it 📅 2021-04-25 #two ⏫ #three",
            r##""do #one it #two #three" Due=2021-04-25 Priority=⏫"##,
        ),
        // A block id ends the line whatever comes before it.
        (
            " a 📅 2021-04-25 ^abc-1",
            r##""a" Due=2021-04-25 block=^abc-1"##,
        ),
        (" a^abc", r##""a^abc""##),
        (" do this first 🆔 dcf64c", r##""do this first" Id=dcf64c"##),
        (
            " do this after ⛔ dcf64c,0h17ye",
            r##""do this after" DependsOn=dcf64c,0h17ye"##,
        ),
        (" after ⛔ a , b", r##""after" DependsOn=a , b"##),
        (
            " Remove me when done 🔁 every day 🏁 delete",
            r##""Remove me when done" Recurrence=every day OnCompletion=delete"##,
        ),
        // One priority a pass: all are read, the leftmost counts.
        (
            " all 🔺 ⏫ 🔼 🔽 ⏬",
            r##""all" Priority=🔺 Priority=⏫ Priority=🔼 Priority=🔽 Priority=⏬"##,
        ),
        (
            " x ➕ 2023-04-13 🛫 2023-04-15 ❌ 2023-04-18 ✅ 2023-04-17",
            r##""x" Created=2023-04-13 Start=2023-04-15 Cancelled=2023-04-18 Done=2023-04-17"##,
        ),
        // A date-shaped value that is no day is still read (and invalid).
        (" x 📅 2023-02-30", r##""x" Due=2023-02-30"##),
        // Not a date: text.
        (" x 📅 2023-2-3", r##""x 📅 2023-2-3""##),
        // The rule's characters are letters, digits, commas, spaces and `!`.
        (
            " x 🔁 every 2 weeks on Monday, Friday when done",
            r##""x" Recurrence=every 2 weeks on Monday, Friday when done"##,
        ),
        (" x 🔁 every day; or not", r##""x 🔁 every day; or not""##),
        ("", r##""""##),
        (" 📅 2021-04-25", r##""" Due=2021-04-25"##),
        // A no-break space stops the value from being read.
        (" x 📅\u{a0}2021-04-25", r##""x 📅\u{a0}2021-04-25""##),
    ];
    for (text, want) in cases {
        assert_eq!(show(text), want, "{text:?}");
    }
}

#[test]
fn dataview_fields() {
    let cases = [
        (" a [due:: 2021-04-25]", r##""a" dv:Due=2021-04-25"##),
        (
            " a  [priority:: high]  [repeat:: every day when done]  [start:: 2021-04-20]",
            r##""a" dv:Priority=high dv:Recurrence=every day when done dv:Start=2021-04-20"##,
        ),
        (" a (due:: 2021-04-25)", r##""a" dv:Due=2021-04-25"##),
        (" a [ due::2021-04-25 ],", r##""a" dv:Due=2021-04-25"##),
        (
            " a [completion:: 2021-04-25] [cancelled:: 2021-04-26]",
            r##""a" dv:Done=2021-04-25 dv:Cancelled=2021-04-26"##,
        ),
        (
            " a [id:: abc] [dependsOn:: x,y] [onCompletion:: delete]",
            r##""a" dv:Id=abc dv:DependsOn=x,y dv:OnCompletion=delete"##,
        ),
        (" a [priority:: highest]", r##""a" dv:Priority=highest"##),
        // Mismatched brackets, unknown keys and other cases are text.
        (" a [due:: 2021-04-25)", r##""a [due:: 2021-04-25)""##),
        (" a [Due:: 2021-04-25]", r##""a [Due:: 2021-04-25]""##),
        (" a [priority:: urgent]", r##""a [priority:: urgent]""##),
        // Both formats on one line are both read.
        (
            " a [due:: 2021-04-25] ⏫",
            r##""a" dv:Due=2021-04-25 Priority=⏫"##,
        ),
    ];
    for (text, want) in cases {
        assert_eq!(show(text), want, "{text:?}");
    }
}

#[test]
fn the_leftmost_of_a_repeated_field_counts() {
    let f = read(" a 📅 2021-01-01 📅 2021-02-02");
    let text = " a 📅 2021-01-01 📅 2021-02-02";
    assert_eq!(
        &text[f.get(FieldKind::Due).unwrap().value.clone()],
        "2021-01-01"
    );
    assert_eq!(f.fields.len(), 2);
}

#[test]
fn reading_stops_after_the_plugins_passes() {
    // Each pass takes one tag and one due date off the end; a line with more
    // pairs than passes keeps the rest as text, as the plugin does.
    let mut text = String::from(" a");
    for _ in 0..30 {
        text += " #t 📅 2021-01-01";
    }
    let f = read(&text);
    assert_eq!(f.fields.len(), 21);
    assert!(f.description.starts_with("a #t 📅"), "{}", f.description);
}

#[test]
fn never_panics_on_any_cut_of_a_line() {
    let line = " x #a ⏫\u{fe0f} 🔁 every day 🏁 delete 🆔 a-1 ⛔ b, c [due:: 2021-04-25] (start:: 2021-04-20), ✅ 2021-04-26 ^blk";
    for (i, _) in line.char_indices() {
        let _ = read(&line[i..]);
        let _ = read(&line[..i]);
    }
}
