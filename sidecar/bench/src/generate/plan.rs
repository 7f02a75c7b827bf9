//! The plan of a generated vault: everything another note may refer to
//! (folders, names, headings, block ids, hubs, missing targets), drawn
//! from one seeded generator.

use std::collections::HashSet;

use fastrand::Rng;
use unicode_normalization::UnicodeNormalization;

use super::words::*;
use weft_vault::key::name_key;

pub(super) struct NotePlan {
    /// Index into `Plan::folders`.
    pub(super) folder: usize,
    pub(super) stem: String,
    /// Frontmatter: whether it has one and its `title`.
    pub(super) frontmatter: bool,
    pub(super) title: Option<String>,
    pub(super) aliases: Vec<String>,
    /// (level, text), in order; the H1 included.
    pub(super) headings: Vec<(u8, String)>,
    pub(super) blocks: Vec<String>,
    pub(super) target_size: usize,
}

pub(super) struct Plan {
    pub(super) seed: u64,
    /// Vault-relative folder paths; `folders[0]` is the root (`""`).
    pub(super) folders: Vec<String>,
    pub(super) notes: Vec<NotePlan>,
    /// Notes in hub order: `hubs[0]` gets the most backlinks.
    pub(super) hubs: Vec<u32>,
    /// Notes of each folder.
    pub(super) by_folder: Vec<Vec<u32>>,
    /// Notes that have aliases.
    pub(super) with_aliases: Vec<u32>,
    /// Names no note has: targets of unresolved links.
    pub(super) missing: Vec<String>,
    /// Vault paths of the attachments.
    pub(super) attachments: Vec<String>,
    pub(super) duplicate_stems: usize,
}

impl Plan {
    pub(super) fn new(notes: usize, seed: u64) -> Plan {
        let n = notes;
        let mut rng = Rng::with_seed(mix(seed, 1, 0));

        // Folders: about sqrt(N)/2, depth 0..=3, two with telling names.
        let folder_count = ((n as f64).sqrt() / 2.0).round() as usize;
        let mut folders = vec![String::new()];
        let mut depths = vec![0u8];
        let mut taken: HashSet<String> = HashSet::new();
        let daily_folder = (n >= 20).then(|| {
            folders.push("Daily".to_string());
            depths.push(1);
            taken.insert(name_key("Daily"));
            folders.len() - 1
        });
        for k in 0..folder_count.saturating_sub(folders.len() - 1) {
            let name = match k {
                0 => "Café notes",
                1 => "日本語",
                _ => pick(&mut rng, FOLDER_NAMES),
            };
            let candidates: Vec<usize> = (0..folders.len())
                .filter(|&f| depths[f] < 3 && Some(f) != daily_folder)
                .collect();
            let parent = if rng.bool() {
                0
            } else {
                candidates[rng.usize(..candidates.len())]
            };
            let mut path = if parent == 0 {
                name.to_string()
            } else {
                format!("{}/{name}", folders[parent])
            };
            let mut suffix = 2;
            while !taken.insert(name_key(&path)) {
                path = if parent == 0 {
                    format!("{name} {suffix}")
                } else {
                    format!("{}/{name} {suffix}", folders[parent])
                };
                suffix += 1;
            }
            folders.push(path);
            depths.push(depths[parent] + 1);
        }
        // Folder sizes are skewed too: a shuffled order, Zipf over it.
        let mut folder_order: Vec<usize> = (0..folders.len())
            .filter(|&f| Some(f) != daily_folder)
            .collect();
        rng.shuffle(&mut folder_order);

        // Notes: names unique per folder (case-insensitively, NFC); stems
        // unique across the vault except for the deliberate duplicates.
        let mut stems: HashSet<String> = HashSet::new();
        let mut notes: Vec<NotePlan> = Vec::with_capacity(n);
        let mut by_folder: Vec<Vec<u32>> = vec![Vec::new(); folders.len()];
        let mut day = 0;
        let large: HashSet<usize> = {
            let count = match n {
                0..=49 => 0,
                50..=999 => 1,
                _ => 3,
            };
            let mut set = HashSet::new();
            while set.len() < count {
                set.insert(rng.usize(..n));
            }
            set
        };
        for i in 0..n {
            let daily = daily_folder.filter(|_| rng.f64() < 0.08);
            let (folder, stem) = match daily {
                Some(f) => {
                    day += rng.u32(1..3);
                    (f, date(day))
                }
                None => {
                    let folder = folder_order[zipf(&mut rng, folder_order.len())];
                    let mut stem = note_name(&mut rng);
                    let mut tries = 0;
                    while stems.contains(&name_key(&stem)) {
                        tries += 1;
                        stem = if tries < 6 {
                            note_name(&mut rng)
                        } else {
                            format!("{} {}", note_name(&mut rng), rng.u32(2..100_000))
                        };
                    }
                    (folder, stem)
                }
            };
            stems.insert(name_key(&stem));
            by_folder[folder].push(i as u32);
            notes.push(Self::note_plan(&mut rng, folder, stem, large.contains(&i)));
        }

        let mut hubs: Vec<u32> = (0..n as u32).collect();
        rng.shuffle(&mut hubs);

        // A few duplicate stems in other folders; the first copies a top hub
        // so that ambiguous links are common, as with "Meeting notes".
        let mut duplicate_stems = 0;
        if folders.len() > 2 && n >= 10 {
            let wanted = 2 + n / 150;
            let mut in_folder: HashSet<(usize, String)> = notes
                .iter()
                .map(|p| (p.folder, name_key(&p.stem)))
                .collect();
            let mut tries = 0;
            while duplicate_stems < wanted && tries < wanted * 20 {
                tries += 1;
                let source = if duplicate_stems == 0 {
                    // The top hub that is not a daily note.
                    hubs.iter()
                        .map(|&h| h as usize)
                        .find(|&h| Some(notes[h].folder) != daily_folder)
                        .unwrap_or(0)
                } else {
                    rng.usize(..n)
                };
                let victim = rng.usize(..n);
                let (sf, vf) = (notes[source].folder, notes[victim].folder);
                if source == victim || sf == vf || Some(vf) == daily_folder {
                    continue;
                }
                if Some(sf) == daily_folder || hubs[..2.min(n)].contains(&(victim as u32)) {
                    continue;
                }
                let key = name_key(&notes[source].stem);
                if !in_folder.insert((vf, key)) {
                    continue;
                }
                in_folder.remove(&(vf, name_key(&notes[victim].stem)));
                notes[victim].stem = notes[source].stem.clone();
                duplicate_stems += 1;
            }
        }

        let with_aliases = (0..n as u32)
            .filter(|&i| !notes[i as usize].aliases.is_empty())
            .collect();
        let mut missing = Vec::new();
        while missing.len() < 10.max(n / 40) {
            let name = format!(
                "{} {}",
                note_name(&mut rng),
                pick(&mut rng, &["draft", "todo", "later", "someday", "maybe"])
            );
            if !stems.contains(&name_key(&name)) {
                missing.push(name);
            }
        }
        let mut attachments: Vec<String> = FIXED_ATTACHMENTS
            .iter()
            .map(|a| format!("{ATTACHMENT_FOLDER}/{a}"))
            .collect();
        for k in 0..(n / 2000).min(60) {
            attachments.push(format!("{ATTACHMENT_FOLDER}/image {}.png", k + 1));
        }
        Plan {
            seed,
            folders,
            notes,
            hubs,
            by_folder,
            with_aliases,
            missing,
            attachments,
            duplicate_stems,
        }
    }

    pub(super) fn note_plan(rng: &mut Rng, folder: usize, stem: String, large: bool) -> NotePlan {
        let frontmatter = rng.f64() < 0.6;
        let title = (frontmatter && rng.f64() < 0.3).then(|| {
            let lead = pick(rng, &["The", "On", "Notes on", "Thoughts on", "A guide to"]);
            format!("{lead} {}", stem.nfc().collect::<String>().to_lowercase())
        });
        let h1 = (rng.f64() < 0.55).then(|| {
            if rng.f64() < 0.8 {
                stem.nfc().collect()
            } else {
                title_case(&format!("{} {}", pick(rng, ADJECTIVES), pick(rng, NOUNS)))
            }
        });
        let mut aliases = Vec::new();
        // Aliases live in frontmatter: 1 in 3 of those notes, 20% of all.
        if frontmatter && rng.f64() < 0.33 {
            for _ in 0..rng.usize(1..=3) {
                let alias = match rng.u8(0..4) {
                    0 => {
                        let initials: String = stem
                            .split(' ')
                            .filter_map(|w| w.chars().next())
                            .flat_map(char::to_uppercase)
                            .collect();
                        if initials.chars().count() >= 2 {
                            initials
                        } else {
                            format!("{stem} (alt)")
                        }
                    }
                    1 => stem.to_lowercase(),
                    2 => format!("{} {}", pick(rng, EXOTIC), pick(rng, NOUNS)),
                    _ => capitalize(&format!("{} {}", pick(rng, ADJECTIVES), pick(rng, NOUNS))),
                };
                if !aliases.contains(&alias) {
                    aliases.push(alias);
                }
            }
        }
        // Sizes: log-normal, median ~1.4 KB, mean ~2 KB; or 1–5 MB.
        let target_size = if large {
            rng.usize(1_000_000..5_000_000)
        } else {
            ((1400.0 * (0.85 * normal(rng)).exp()) as usize).clamp(120, 60_000)
        };
        let heading_count = if large {
            target_size / 6000
        } else {
            rng.usize(1..=8)
        };
        let mut headings: Vec<(u8, String)> = Vec::with_capacity(heading_count);
        if let Some(h1) = &h1 {
            headings.push((1, h1.clone()));
        }
        let mut level = 2u8;
        while headings.len() < heading_count {
            // A walk over levels 2..=4, with an occasional level 1.
            level = match rng.u8(0..10) {
                0..=4 => level,
                5..=7 => (level + 1).min(4),
                _ => level.saturating_sub(1).max(2),
            };
            let level = if rng.u8(0..12) == 0 { 1 } else { level };
            let mut text = pick(rng, HEADINGS).to_string();
            if rng.f64() < 0.3 || large {
                text = format!("{text} {}", pick(rng, NOUNS));
            }
            let mut unique = text.clone();
            let mut k = 2;
            while headings
                .iter()
                .any(|(_, t)| t.eq_ignore_ascii_case(&unique))
            {
                unique = format!("{text} {k}");
                k += 1;
            }
            headings.push((level, unique));
        }
        let block_count = if large {
            target_size / 20_000
        } else if rng.f64() < 0.3 {
            rng.usize(1..=4)
        } else {
            0
        };
        let mut blocks: Vec<String> = Vec::with_capacity(block_count);
        while blocks.len() < block_count {
            let id = block_id(rng);
            if !blocks.contains(&id) {
                blocks.push(id);
            }
        }
        NotePlan {
            folder,
            stem,
            frontmatter,
            title,
            aliases,
            headings,
            blocks,
            target_size,
        }
    }

    /// Vault path of note `i`, with `.md`.
    pub(super) fn path(&self, i: usize) -> String {
        let note = &self.notes[i];
        match note.folder {
            0 => format!("{}.md", note.stem),
            f => format!("{}/{}.md", self.folders[f], note.stem),
        }
    }
}

/// A small binary file whose first bytes look like its type.
pub(super) fn attachment_bytes(rng: &mut Rng, name: &str) -> Vec<u8> {
    let magic: &[u8] = if name.ends_with(".png") {
        b"\x89PNG\r\n\x1a\n"
    } else if name.ends_with(".pdf") {
        b"%PDF-1.4\n"
    } else {
        b"\xff\xd8\xff\xe0"
    };
    let mut bytes = magic.to_vec();
    let len = rng.usize(200..4000);
    bytes.extend((0..len).map(|_| rng.u8(..)));
    bytes
}
