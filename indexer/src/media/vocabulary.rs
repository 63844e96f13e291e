//! The profile's own vocabulary for speech recognition: the names of its people and
//! the most frequent proper nouns of its text, given to Whisper as an initial prompt so
//! that "Hannah and Inês" is not heard as "hand and knees".
//!
//! Sources, read once per run before the first audio file is transcribed (a pre-pass
//! over the walked files, bounded by [`MAX_FILES`] and [`MAX_BYTES`]):
//!
//! * contacts: vCards (`FN`, else `N`) and contact lists exported as CSV (a file named
//!   `*contact*.csv` with a `Name`, `Display Name`, `Full Name` or `First Name` +
//!   `Last Name` column);
//! * e-mail participants (the display names of From, To and Cc) and calendar organizers
//!   and attendees, through the converters of the index;
//! * proper nouns of the profile's text (mail bodies, events, notes, txt/md, docx, odt,
//!   pptx, html): capitalised words inside a sentence that the text rarely writes in
//!   lower case. PDFs and spreadsheets are left out to keep the pre-pass cheap.
//!
//! People count [`PERSON_WEIGHT`] mentions per occurrence. Names are merged when they
//! fold (case, accents) to the same key; a single word that is part of a person's full
//! name adds its mentions to that name (and lends it its accents: "Tomas Ferreira" +
//! "Tomás" → "Tomás Ferreira"). The [`MAX_NAMES`] most mentioned names, most mentioned
//! first, make the prompt, cut at [`super::whisper::MAX_PROMPT_TOKENS`] tokens.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use converters::{FileType, Input};
use unicode_normalization::char::is_combining_mark;
use unicode_normalization::UnicodeNormalization;

/// Most names in a prompt.
pub const MAX_NAMES: usize = 100;
/// Most files and bytes the pre-pass reads.
pub const MAX_FILES: usize = 4000;
pub const MAX_BYTES: u64 = 64 * 1024 * 1024;
/// Largest single file read.
const MAX_FILE_BYTES: u64 = 4 * 1024 * 1024;
/// A contact or correspondent counts as this many mentions.
pub const PERSON_WEIGHT: u32 = 3;
/// A capitalised word needs this many mentions inside sentences to be a proper noun…
const MIN_MENTIONS: u32 = 2;
/// …and must be written capitalised at least this many times as often as in lower case.
const CAPITAL_RATIO: u32 = 4;

/// Mentions of the names of a profile.
#[derive(Debug, Default)]
pub struct Vocabulary {
    /// Fold key → spellings and their counts, of people (full display names).
    people: HashMap<String, BTreeMap<String, u32>>,
    /// Fold key → spellings seen capitalised inside a sentence.
    capitalised: HashMap<String, BTreeMap<String, u32>>,
    /// Fold key → times written all in lower case.
    lower: HashMap<String, u32>,
}

impl Vocabulary {
    /// The vocabulary of the walked files `(relative path, path on disk, size)`.
    pub fn from_files<'a>(files: impl IntoIterator<Item = (&'a str, &'a Path, u64)>) -> Self {
        let mut vocabulary = Vocabulary::default();
        let (mut count, mut bytes) = (0usize, 0u64);
        for (rel_path, abs_path, size) in files {
            if count >= MAX_FILES || bytes >= MAX_BYTES {
                break;
            }
            if size == 0 || size > MAX_FILE_BYTES || !wanted(rel_path) {
                continue;
            }
            let Ok(content) = std::fs::read(abs_path) else {
                continue;
            };
            count += 1;
            bytes += content.len() as u64;
            vocabulary.add_file(rel_path, &content);
        }
        vocabulary
    }

    /// Adds what one file says (unreadable or unknown files add nothing).
    pub fn add_file(&mut self, rel_path: &str, bytes: &[u8]) {
        let ext = converters::extension_of(rel_path);
        if ext == "vcf" || ext == "vcard" {
            self.add_vcards(&String::from_utf8_lossy(bytes));
            return;
        }
        if ext == "csv" {
            if file_name(rel_path).to_lowercase().contains("contact") {
                self.add_contact_csv(&String::from_utf8_lossy(bytes));
            }
            return;
        }
        let input = Input::detect(rel_path, bytes);
        if !matches!(
            input.file_type,
            FileType::Eml
                | FileType::Ics
                | FileType::Docx
                | FileType::Odt
                | FileType::Pptx
                | FileType::Html
                | FileType::Text
        ) {
            return;
        }
        let Ok(conversion) = converters::convert(&input) else {
            return;
        };
        for unit in &conversion.units {
            for key in ["from", "to", "cc", "organizer", "attendees"] {
                if let Some(list) = unit.fields.get(key) {
                    for name in display_names(list) {
                        self.add_person(&name);
                    }
                }
            }
            self.add_text(&unit.text);
        }
    }

    /// One mention of a person by their display name ("Hannah Lindqvist").
    pub fn add_person(&mut self, name: &str) {
        // "Lindgren, Astrid" → "Astrid Lindgren".
        let name = match name.split_once(',') {
            Some((family, given)) if !given.contains(',') => format!("{given} {family}"),
            _ => name.to_string(),
        };
        let name = name.split_whitespace().collect::<Vec<_>>().join(" ");
        let name = name.trim_matches(|c: char| c == '"' || c == '\'' || c.is_whitespace());
        let words = name.split(' ').count();
        if name.is_empty()
            || words > 4
            || name.contains('@')
            || !name.chars().next().is_some_and(char::is_alphabetic)
        {
            return;
        }
        *self
            .people
            .entry(fold(name))
            .or_default()
            .entry(name.to_string())
            .or_default() += PERSON_WEIGHT;
    }

    /// Counts the capitalised and lower-case words of running text. A capitalised word
    /// counts when it follows a lower-case word of its sentence or a counted one
    /// ("met Elaine Marsh"), so title-case headings ("Natural Resources Conditions") and
    /// sentence starts do not.
    pub fn add_text(&mut self, text: &str) {
        #[derive(Clone, Copy, PartialEq)]
        enum Before {
            Start,
            Lower,
            Counted,
            Other,
        }
        let mut before = Before::Start;
        let mut word = String::new();
        let mut flush = |word: &mut String, before: &mut Before| {
            if word.is_empty() {
                return;
            }
            let first_upper = word.chars().next().is_some_and(char::is_uppercase);
            let rest_lower = word.chars().skip(1).all(char::is_lowercase);
            *before = if first_upper
                && rest_lower
                && matches!(*before, Before::Lower | Before::Counted)
                && word.chars().count() >= 3
            {
                *self
                    .capitalised
                    .entry(fold(word))
                    .or_default()
                    .entry(word.clone())
                    .or_default() += 1;
                Before::Counted
            } else if word.chars().all(char::is_lowercase) {
                *self.lower.entry(fold(word)).or_default() += 1;
                Before::Lower
            } else {
                Before::Other
            };
            word.clear();
        };
        // Addresses and links are not running text ("tomas@example.org").
        let chunks = text
            .split_inclusive('\n')
            .flat_map(|line| line.split_inclusive(' '))
            .filter(|chunk| !chunk.contains('@') && !chunk.contains("://"));
        for c in chunks.flat_map(str::chars) {
            if c.is_alphabetic() {
                word.push(c);
                continue;
            }
            flush(&mut word, &mut before);
            if matches!(c, '.' | '!' | '?' | ':' | '\n' | '#' | '*' | '|' | '•') {
                before = Before::Start;
            }
        }
        flush(&mut word, &mut before);
    }

    /// Every `FN` (or `N`) of vCard text.
    pub fn add_vcards(&mut self, text: &str) {
        // Unfold continuation lines first.
        let mut lines: Vec<String> = Vec::new();
        for line in text.lines() {
            match (line.strip_prefix([' ', '\t']), lines.last_mut()) {
                (Some(rest), Some(last)) => last.push_str(rest),
                _ => lines.push(line.to_string()),
            }
        }
        let mut full_name: Option<String> = None;
        let mut parts_name: Option<String> = None;
        for line in &lines {
            let Some((key, value)) = line.split_once(':') else {
                continue;
            };
            let key = key
                .split(';')
                .next()
                .unwrap_or_default()
                .to_ascii_uppercase();
            let key = key.rsplit('.').next().unwrap_or_default();
            let value = value.replace("\\,", ",").replace("\\;", ";");
            match key {
                "BEGIN" => (full_name, parts_name) = (None, None),
                "FN" => full_name = Some(value.trim().to_string()),
                "N" => {
                    let parts: Vec<&str> = value.split(';').collect();
                    let given = parts.get(1).copied().unwrap_or_default();
                    let family = parts.first().copied().unwrap_or_default();
                    parts_name = Some(format!("{given} {family}").trim().to_string());
                }
                "END" => {
                    if let Some(name) = full_name.take().or(parts_name.take()) {
                        self.add_person(&name);
                    }
                }
                _ => {}
            }
        }
    }

    /// The names column(s) of a contacts export.
    pub fn add_contact_csv(&mut self, text: &str) {
        let mut rows = text.lines().map(csv_fields);
        let Some(header) = rows.next() else { return };
        let column = |names: &[&str]| {
            header
                .iter()
                .position(|h| names.iter().any(|n| h.trim().eq_ignore_ascii_case(n)))
        };
        let full = column(&["Name", "Display Name", "Full Name", "FN"]);
        let first = column(&["First Name", "Given Name"]);
        let last = column(&["Last Name", "Family Name", "Surname"]);
        for row in rows {
            let get = |i: Option<usize>| i.and_then(|i| row.get(i)).map(|s| s.trim());
            let name = match (get(full), get(first), get(last)) {
                (Some(name), _, _) if !name.is_empty() => name.to_string(),
                (_, Some(given), family) => format!("{given} {}", family.unwrap_or_default()),
                _ => continue,
            };
            self.add_person(&name);
        }
    }

    /// The most mentioned names, most first, at most `cap`.
    pub fn ranked(&self, cap: usize) -> Vec<String> {
        // (mentions, spelling) per key.
        let best = |forms: &BTreeMap<String, u32>| {
            let total = forms.values().sum::<u32>();
            let form = forms
                .iter()
                .max_by_key(|(form, n)| (**n, accents(form)))
                .map(|(form, _)| form.clone())
                .unwrap_or_default();
            (total, form)
        };
        let mut people: HashMap<String, (u32, String)> = self
            .people
            .iter()
            .map(|(key, forms)| (key.clone(), best(forms)))
            .collect();
        let mut words: HashMap<String, (u32, String)> = HashMap::new();
        for (key, forms) in &self.capitalised {
            let (mentions, form) = best(forms);
            let lower = self.lower.get(key).copied().unwrap_or(0);
            let singular = key.strip_suffix('s').unwrap_or(key);
            if mentions >= MIN_MENTIONS
                && mentions >= CAPITAL_RATIO * lower
                && !calendar_word(key)
                && !calendar_word(singular)
            {
                words.insert(key.clone(), (mentions, form));
            }
        }
        // A word of a person's name adds to the person (and lends its accents).
        let mut merged: Vec<String> = Vec::new();
        for (key, (mentions, form)) in people.iter_mut() {
            let parts: Vec<&str> = key.split(' ').collect();
            if parts.len() < 2 {
                continue;
            }
            let mut spelled: Vec<String> = form.split(' ').map(str::to_string).collect();
            for (i, part) in parts.iter().enumerate() {
                if let Some((n, word_form)) = words.get(*part) {
                    *mentions += n;
                    if let Some(slot) = spelled.get_mut(i) {
                        if accents(word_form) > accents(slot) {
                            *slot = word_form.clone();
                        }
                    }
                    merged.push(part.to_string());
                }
            }
            *form = spelled.join(" ");
        }
        for key in merged {
            words.remove(&key);
        }
        for (key, (mentions, form)) in words {
            let entry = people.entry(key).or_insert((0, form));
            entry.0 += mentions;
        }
        let mut ranked: Vec<(u32, String)> = people.into_values().collect();
        ranked.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
        ranked.into_iter().take(cap).map(|(_, form)| form).collect()
    }
}

/// The prompt text of ranked names: `"A, B, C."` (a sentence: a bare list primes
/// Whisper to drop punctuation and go on listing), as many names as fit in `max_tokens`
/// tokens as counted by `tokens` (given the text with Whisper's leading space).
pub fn prompt_text(
    names: &[String],
    max_tokens: usize,
    mut tokens: impl FnMut(&str) -> usize,
) -> String {
    let mut prompt = String::new();
    for name in names {
        let candidate = if prompt.is_empty() {
            name.clone()
        } else {
            format!("{prompt}, {name}")
        };
        if tokens(&format!(" {candidate}.")) > max_tokens {
            break;
        }
        prompt = candidate;
    }
    if !prompt.is_empty() {
        prompt.push('.');
    }
    prompt
}

/// A stable short hash of a prompt (for the summary and the logs).
pub fn prompt_hash(prompt: &str) -> String {
    blake3::hash(prompt.as_bytes()).to_hex()[..12].to_string()
}

/// Whether the pre-pass reads this file.
pub fn wanted(rel_path: &str) -> bool {
    let ext = converters::extension_of(rel_path);
    matches!(
        ext.as_str(),
        "vcf" | "vcard" | "eml" | "ics" | "txt" | "md" | "markdown" | "docx" | "odt" | "pptx"
    ) || matches!(ext.as_str(), "html" | "htm")
        || (ext == "csv" && file_name(rel_path).to_lowercase().contains("contact"))
}

fn file_name(rel_path: &str) -> &str {
    rel_path.rsplit('/').next().unwrap_or(rel_path)
}

/// Display names of an address list ("Ann Lee <ann@x.org>, bob@y.org, \"Roe, Al\" <a@z>";
/// the converters drop the quotes: "Roe, Al <a@z>" is one person too).
fn display_names(list: &str) -> Vec<String> {
    let mut entries: Vec<String> = Vec::new();
    let mut current = String::new();
    let (mut quoted, mut angle) = (false, false);
    for c in list.chars().chain(std::iter::once(',')) {
        match c {
            '"' => quoted = !quoted,
            '<' if !quoted => {
                angle = true;
                current.push(c);
            }
            '>' if !quoted => {
                angle = false;
                current.push(c);
            }
            ',' if !quoted && !angle => {
                // A lone family name before "Given <address>" belongs to it.
                let lone = entries
                    .last()
                    .is_some_and(|e| !e.contains(['@', ' ', ',']) && current.contains('<'));
                match entries.last_mut() {
                    Some(last) if lone => {
                        last.push(',');
                        last.push_str(&current);
                    }
                    _ => entries.push(current.trim().to_string()),
                }
                current.clear();
            }
            _ => current.push(c),
        }
    }
    entries
        .iter()
        .filter_map(|entry| {
            let name = match entry.split_once('<') {
                Some((name, _)) => name,
                None if entry.contains('@') => return None,
                None => entry,
            };
            let name = name.trim().trim_end_matches(',').trim();
            (!name.is_empty()).then(|| name.to_string())
        })
        .collect()
}

/// Fields of one CSV line (quotes honoured; no line breaks inside fields).
fn csv_fields(line: &str) -> Vec<String> {
    let mut fields = vec![String::new()];
    let mut quoted = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '"' if quoted && chars.peek() == Some(&'"') => {
                chars.next();
                if let Some(field) = fields.last_mut() {
                    field.push('"');
                }
            }
            '"' => quoted = !quoted,
            ',' if !quoted => fields.push(String::new()),
            _ => {
                if let Some(field) = fields.last_mut() {
                    field.push(c)
                }
            }
        }
    }
    fields
}

/// Month and weekday names and their abbreviations (capitalised, but no names of the
/// profile), from chrono's English names.
fn calendar_word(key: &str) -> bool {
    static WORDS: std::sync::OnceLock<std::collections::HashSet<String>> =
        std::sync::OnceLock::new();
    WORDS
        .get_or_init(|| {
            let mut words = std::collections::HashSet::from(["sept".to_string()]);
            // 2024-01-01 is a Monday: the first 7 days give every weekday.
            for (month, day) in (1..=12).map(|m| (m, 1)).chain((1..=7).map(|d| (1, d))) {
                if let Some(date) = chrono::NaiveDate::from_ymd_opt(2024, month, day) {
                    for format in ["%B", "%b", "%A", "%a"] {
                        words.insert(date.format(format).to_string().to_lowercase());
                    }
                }
            }
            words
        })
        .contains(key)
}

/// Case- and accent-insensitive key.
pub fn fold(text: &str) -> String {
    text.nfd()
        .filter(|c| !is_combining_mark(*c))
        .flat_map(char::to_lowercase)
        .collect()
}

fn accents(text: &str) -> usize {
    text.chars().filter(|c| !c.is_ascii()).count()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixture() -> std::path::PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/names")
    }

    /// The fixture's files as the walk gives them, sorted by path.
    fn fixture_files() -> Vec<(String, std::path::PathBuf, u64)> {
        let root = fixture();
        let mut files = Vec::new();
        let mut dirs = vec![root.clone()];
        while let Some(dir) = dirs.pop() {
            for entry in std::fs::read_dir(&dir).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    dirs.push(path);
                } else {
                    let rel = path
                        .strip_prefix(&root)
                        .unwrap()
                        .to_string_lossy()
                        .into_owned();
                    let size = path.metadata().unwrap().len();
                    files.push((rel, path, size));
                }
            }
        }
        files.sort();
        files
    }

    fn fixture_names(cap: usize) -> Vec<String> {
        let files = fixture_files();
        Vocabulary::from_files(files.iter().map(|(r, a, s)| (r.as_str(), a.as_path(), *s)))
            .ranked(cap)
    }

    #[test]
    fn whisper_prompt_names_come_from_the_fixture_contacts_mail_calendar_and_text() {
        let names = fixture_names(MAX_NAMES);
        let position = |name: &str| {
            names
                .iter()
                .position(|n| n == name)
                .unwrap_or_else(|| panic!("{name} missing from {names:?}"))
        };
        // People of the vCards (FN, N, a folded FN with a group prefix), the contacts
        // CSV, mail headers ("Last, First" turned round) and calendar attendees.
        for person in [
            "Zofia Kowalczyk",
            "Chidi Okonkwo",
            "Siobhán Ní Bhraonáin",
            "Ewa Brzęczyszczykiewicz",
            "Astrid Lindgren",
            "Bartholomew Quist",
        ] {
            position(person);
        }
        // A first name of the text lends its accents to the correspondent's name and
        // adds to it instead of standing alone.
        position("Tomás Pereira");
        // Proper nouns of the text: written capitalised inside sentences.
        position("Jadwiga");
        position("Wrocław");
        for absent in [
            "Tomas Pereira",
            "Tomás",
            "Zofia",
            "Market",
            "August",
            "Aug",
            "Tue",
        ] {
            assert!(!names.iter().any(|n| n == absent), "{absent} in {names:?}");
        }
        assert!(names.iter().all(|n| !n.contains('@')), "{names:?}");
        // Deduplicated up to case and accents.
        let mut keys: Vec<String> = names.iter().map(|n| fold(n)).collect();
        keys.sort();
        keys.dedup();
        assert_eq!(keys.len(), names.len(), "{names:?}");
        // Most mentioned first: Zofia (4 headers + vCard + text) before Tomás (2 headers
        // + 3 mentions) before Jadwiga (6 mentions) before a one-off attendee.
        assert_eq!(names[0], "Zofia Kowalczyk", "{names:?}");
        assert!(position("Tomás Pereira") < position("Jadwiga"), "{names:?}");
        assert!(
            position("Jadwiga") < position("Bartholomew Quist"),
            "{names:?}"
        );
        // The cap keeps the head of the ranking.
        assert_eq!(fixture_names(3), names[..3].to_vec());
    }

    #[test]
    fn prompt_text_stops_at_the_token_limit() {
        let names = fixture_names(MAX_NAMES);
        let words = |t: &str| t.split_whitespace().count();
        let all = prompt_text(&names, usize::MAX, words);
        assert_eq!(all, names.join(", ") + ".");
        let short = prompt_text(&names, 5, words);
        assert!(words(&short) <= 5, "{short}");
        assert!(all.starts_with(short.trim_end_matches('.')), "{short}");
        assert_eq!(short, "Zofia Kowalczyk, Tomás Pereira, Jadwiga.");
        // A name that does not fit whole is left out.
        assert_eq!(
            prompt_text(&names, 4, words),
            "Zofia Kowalczyk, Tomás Pereira."
        );
        assert_eq!(prompt_text(&names, 1, words), "");
        assert_eq!(prompt_hash(&short), prompt_hash(&short.clone()));
        assert_ne!(prompt_hash(&short), prompt_hash(&all));
    }

    #[test]
    fn address_lists_and_csv_lines_split_where_they_should() {
        assert_eq!(
            display_names("Ann Lee <ann@x.org>, bob@y.org, \"Roe, Al\" <a@z.org>"),
            vec!["Ann Lee".to_string(), "Roe, Al".to_string()]
        );
        assert_eq!(
            display_names("Roe, Al <a@z.org>, Bo Yi, c@d.org"),
            vec!["Roe, Al".to_string(), "Bo Yi".to_string()]
        );
        assert_eq!(
            csv_fields("\"A, B\",C,\"say \"\"hi\"\"\""),
            vec!["A, B", "C", "say \"hi\""]
        );
        assert_eq!(fold("Inês ÅSA"), "ines asa");
        let mut vocabulary = Vocabulary::default();
        vocabulary.add_text("");
        vocabulary.add_vcards("FN:\nEND:VCARD\nBEGIN:VCARD");
        vocabulary.add_contact_csv("");
        vocabulary.add_file("x.csv", b"\xff\xfe");
        vocabulary.add_file("contacts.csv", b"\xff\xfe\n,,");
        vocabulary.add_file("broken.eml", b"\x00\x01");
        assert!(vocabulary.ranked(MAX_NAMES).is_empty());
    }
}
