//! Questions about doing: a first-person subject ("I", "we") followed closely by a verb
//! of doing something to files (edit, create, rename, move, delete, read, work on), and
//! a time the planner's time parser understands. The verb says which kinds of events
//! answer it. Detection reads the form of the question only, never particular words of
//! a topic; what remains after the subject, the verb, the time and the question words
//! decides whether the question is *only* about doing ("what was I working on last
//! Tuesday evening") or also about a topic ("what did I write about the budget last
//! week").

use index::ActivityKind;

use crate::timeparse::TimeIntent;

/// What a question about doing asks for.
#[derive(Debug, Clone, PartialEq)]
pub struct DoingIntent {
    /// The kinds of events that answer it.
    pub kinds: Vec<ActivityKind>,
    /// The verbs read, for `explain`.
    pub verbs: Vec<String>,
    /// Nothing but subject, verb, time and question words: the activity is the answer.
    pub only_doing: bool,
}

/// Words after the subject before the verb at most ("did I already edit", "I've been
/// editing").
const VERB_REACH: usize = 3;

/// Verbs of doing (all forms) and the kinds of events they ask about.
fn kinds_of_verb(word: &str, next: Option<&str>) -> Option<&'static [ActivityKind]> {
    use ActivityKind::*;
    const CHANGES: &[ActivityKind] = &[Created, Modified, Renamed, Moved, Copied, Read];
    const EDITED: &[ActivityKind] = &[Modified];
    const WRITTEN: &[ActivityKind] = &[Created, Modified];
    Some(match word {
        "edit" | "edits" | "edited" | "editing" | "modify" | "modifies" | "modified"
        | "modifying" | "change" | "changed" | "changing" | "update" | "updated" | "updating"
        | "revise" | "revised" | "revising" | "tweak" | "tweaked" | "tweaking" | "fix"
        | "fixed" | "fixing" => EDITED,
        "write" | "wrote" | "written" | "writing" | "rewrite" | "rewrote" | "save" | "saved"
        | "saving" | "draft" | "drafted" | "drafting" => WRITTEN,
        "create" | "created" | "creating" | "creates" => &[Created],
        "rename" | "renamed" | "renaming" => &[Renamed],
        "move" | "moved" | "moving" | "reorganise" | "reorganised" | "reorganize"
        | "reorganized" => &[Moved, Renamed],
        "delete" | "deleted" | "deleting" | "remove" | "removed" | "removing" | "trash"
        | "trashed" => &[Deleted],
        "read" | "reading" | "open" | "opened" | "opening" | "view" | "viewed" | "viewing" => {
            &[Read]
        }
        "copy" | "copied" | "copying" | "duplicate" | "duplicated" => &[Copied],
        "touch" | "touched" | "touching" => CHANGES,
        "work" | "worked" | "working" | "busy" if matches!(next, Some("on" | "with")) => CHANGES,
        "look" | "looked" | "looking" if next == Some("at") => &[Read],
        _ => return None,
    })
}

fn is_subject(word: &str) -> bool {
    matches!(word, "i" | "i've" | "i'd" | "i'm" | "we" | "we've" | "we'd")
}

/// Words that carry no topic in a question about doing.
fn is_frame_word(word: &str) -> bool {
    matches!(
        word,
        "what"
            | "which"
            | "where"
            | "when"
            | "who"
            | "how"
            | "did"
            | "do"
            | "does"
            | "was"
            | "were"
            | "have"
            | "has"
            | "had"
            | "been"
            | "am"
            | "is"
            | "are"
            | "on"
            | "at"
            | "with"
            | "in"
            | "during"
            | "file"
            | "files"
            | "document"
            | "documents"
            | "thing"
            | "things"
            | "stuff"
            | "anything"
            | "something"
            | "all"
            | "any"
            | "the"
            | "a"
            | "an"
            | "of"
            | "my"
            | "me"
            | "our"
            | "us"
            | "just"
            | "already"
            | "recently"
            | "actually"
            | "ever"
            | "again"
            | "else"
            | "there"
            | "that"
            | "those"
            | "these"
            | "it"
            | "up"
            | "to"
    )
}

/// Words of time expressions (the parser's phrases are not always the words used).
fn is_time_word(word: &str) -> bool {
    word.chars().all(|c| c.is_ascii_digit())
        || word
            .strip_suffix("st")
            .or_else(|| word.strip_suffix("nd"))
            .or_else(|| word.strip_suffix("rd"))
            .or_else(|| word.strip_suffix("th"))
            .is_some_and(|n| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()))
        || crate::timeparse::is_time_word(word)
}

fn words(text: &str) -> Vec<String> {
    text.to_lowercase()
        .replace('’', "'")
        .split(|c: char| !c.is_alphanumeric() && c != '\'')
        .map(|w| w.trim_matches('\'').to_string())
        .filter(|w| !w.is_empty())
        .collect()
}

/// A first-person subject with a verb of doing, before the time is looked at.
#[derive(Debug, Clone)]
pub struct Doing {
    kinds: Vec<ActivityKind>,
    verbs: Vec<String>,
    words: Vec<String>,
    /// Words read as the subject or the verb.
    used: Vec<bool>,
}

/// The subject and verb of a question about doing (`None`: no first-person subject
/// followed closely by a verb of doing).
pub fn doing_verbs(query: &str) -> Option<Doing> {
    let words = words(query);
    let mut kinds: Vec<ActivityKind> = Vec::new();
    let mut verbs = Vec::new();
    let mut used = vec![false; words.len()];
    for (i, word) in words.iter().enumerate() {
        if !is_subject(word) {
            continue;
        }
        used[i] = true;
        for j in i + 1..(i + 1 + VERB_REACH).min(words.len()) {
            let next = words.get(j + 1).map(String::as_str);
            if let Some(found) = kinds_of_verb(&words[j], next) {
                used[j] = true;
                verbs.push(words[j].clone());
                for kind in found {
                    if !kinds.contains(kind) {
                        kinds.push(kind.clone());
                    }
                }
                break;
            }
        }
    }
    (!kinds.is_empty()).then_some(Doing {
        kinds,
        verbs,
        words,
        used,
    })
}

impl Doing {
    /// The question about doing at `time` (what the time parser read from the same
    /// question): without a range or a weekday it is not one ("when did I create the
    /// budget?" asks for a time).
    pub fn at(self, time: &TimeIntent) -> Option<DoingIntent> {
        if time.range.is_none() && time.weekdays.is_empty() {
            return None;
        }
        let time_words: Vec<String> = time.phrases.iter().flat_map(|p| words_of(p)).collect();
        let only_doing = self.words.iter().zip(&self.used).all(|(word, used)| {
            *used
                || is_frame_word(word)
                || is_subject(word)
                || kinds_of_verb(word, None).is_some()
                || time_words.contains(word)
                || is_time_word(word)
                || matches!(word.as_str(), "work" | "worked" | "working" | "busy")
        });
        Some(DoingIntent {
            kinds: self.kinds,
            verbs: self.verbs,
            only_doing,
        })
    }
}

/// Reads a question about doing at a time; `None` for any other question.
pub fn detect(query: &str, time: &TimeIntent) -> Option<DoingIntent> {
    doing_verbs(query)?.at(time)
}

fn words_of(phrase: &str) -> Vec<String> {
    words(phrase)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::timeparse::parse;
    use chrono::NaiveDate;

    fn read(query: &str) -> Option<DoingIntent> {
        let reference = NaiveDate::from_ymd_opt(2025, 11, 15)
            .unwrap()
            .and_hms_opt(12, 0, 0)
            .unwrap();
        detect(query, &parse(query, reference))
    }

    #[test]
    fn first_person_doing_at_a_time_is_detected_with_its_kinds() {
        use ActivityKind::*;
        let cases: [(&str, &[ActivityKind], bool); 7] = [
            (
                "What was I working on last Tuesday evening?",
                &[Created, Modified, Renamed, Moved, Copied, Read],
                true,
            ),
            ("Which files did I edit yesterday?", &[Modified], true),
            ("What did I rename last week?", &[Renamed], true),
            ("files I created in October", &[Created], true),
            ("What have we deleted this month?", &[Deleted], true),
            ("What was I reading on Wednesday?", &[Read], true),
            (
                "What did I write about the kiln budget last week?",
                &[Created, Modified],
                false,
            ),
        ];
        for (question, kinds, only) in cases {
            let intent = read(question).unwrap_or_else(|| panic!("{question}"));
            assert_eq!(intent.kinds, kinds, "{question}");
            assert_eq!(intent.only_doing, only, "{question}: {intent:?}");
        }
    }

    #[test]
    fn other_questions_are_not_about_doing() {
        for question in [
            // No first-person subject.
            "Which files did Ana edit yesterday?",
            "How did my weight change in October?",
            // No time.
            "When did I create the budget spreadsheet?",
            "Which files did I edit?",
            // No verb of doing (or too far from the subject).
            "What did I eat last Tuesday evening?",
            "What time did I wake up yesterday?",
            "I think the lantern budget we discussed last week changed",
            // A verb without its particle.
            "Where did I work in October 2024?",
            "What is the edit distance of the two drafts from March?",
        ] {
            assert_eq!(read(question), None, "{question}");
        }
    }
}
