//! [`UnitFilter`]s as Qdrant filters, with the meaning of [`UnitFilter::matches`].

use index::api::UnitFilter;
use qdrant_client::qdrant::{Condition, Filter, Range};

use crate::payload::{FILE, UNIT};

/// `profile` and `doc_type` must match.
pub fn of_type(profile: &str, doc_type: &str) -> Vec<Condition> {
    vec![
        Condition::matches("profile", profile.to_string()),
        Condition::matches("doc_type", doc_type.to_string()),
    ]
}

/// The units of a profile that `filter` lets through.
pub fn unit_filter(profile: &str, filter: &UnitFilter) -> Filter {
    Filter::must(unit_conditions(profile, filter))
}

/// The conditions of [`unit_filter`] (all must hold).
pub fn unit_conditions(profile: &str, filter: &UnitFilter) -> Vec<Condition> {
    let mut must = of_type(profile, UNIT);
    if let Some(paths) = path_condition(&filter.path_prefixes) {
        must.push(paths);
    }
    for (key, values) in [
        ("modality", &filter.modalities),
        ("ext", &filter.extensions),
        ("kind", &filter.kinds),
    ] {
        if !values.is_empty() {
            must.push(Condition::matches(key, values.clone()));
        }
    }
    if filter.time_start.is_some() || filter.time_end.is_some() {
        must.push(Condition::range(
            "content_time",
            Range {
                gte: filter.time_start.map(|t| t as f64),
                lt: filter.time_end.map(|t| t as f64),
                ..Range::default()
            },
        ));
    }
    must
}

/// Path prefixes: any of them (a folder the unit is filed under, or the exact path).
/// `None` when there are none, or when one is the profile root itself (`""`, `/`), which
/// lets everything through.
fn path_condition(prefixes: &[String]) -> Option<Condition> {
    if prefixes.is_empty() {
        return None;
    }
    let mut should = Vec::new();
    for prefix in prefixes {
        let clean = prefix.trim_matches('/');
        let folder = clean
            .split('/')
            .filter(|p| !p.is_empty())
            .collect::<Vec<_>>()
            .join("/");
        if folder.is_empty() {
            return None;
        }
        should.push(Condition::matches("folders", folder));
        should.push(Condition::matches("path", clean.to_string()));
    }
    Some(Filter::should(should).into())
}

/// The file points of a profile.
pub fn file_points(profile: &str) -> Filter {
    Filter::must(of_type(profile, FILE))
}

/// Every point of one file (units and file point).
pub fn whole_file(profile: &str, file_id: &str) -> Filter {
    Filter::must([
        Condition::matches("profile", profile.to_string()),
        Condition::matches("file_id", file_id.to_string()),
    ])
}

/// The unit points of one file.
pub fn units_of_file(profile: &str, file_id: &str) -> Filter {
    units_of_files(profile, vec![file_id.to_string()])
}

/// The unit points of some files.
pub fn units_of_files(profile: &str, file_ids: Vec<String>) -> Filter {
    let mut must = of_type(profile, UNIT);
    must.push(Condition::matches("file_id", file_ids));
    Filter::must(must)
}

#[cfg(test)]
mod tests {
    use super::*;
    use qdrant_client::qdrant::condition::ConditionOneOf;
    use qdrant_client::qdrant::r#match::MatchValue;

    /// `(key, match)` of a field condition, for comparisons.
    fn describe(condition: &Condition) -> String {
        match condition.condition_one_of.as_ref().unwrap() {
            ConditionOneOf::Field(field) => {
                if let Some(range) = &field.range {
                    return format!("{} in [{:?}, {:?})", field.key, range.gte, range.lt);
                }
                let value = match field
                    .r#match
                    .as_ref()
                    .unwrap()
                    .match_value
                    .as_ref()
                    .unwrap()
                {
                    MatchValue::Keyword(k) => k.clone(),
                    MatchValue::Keywords(k) => format!("any{:?}", k.strings),
                    other => format!("{other:?}"),
                };
                format!("{}={value}", field.key)
            }
            ConditionOneOf::Filter(filter) => format!(
                "should({})",
                filter
                    .should
                    .iter()
                    .map(describe)
                    .collect::<Vec<_>>()
                    .join(" | ")
            ),
            other => format!("{other:?}"),
        }
    }

    fn described(filter: &UnitFilter) -> Vec<String> {
        unit_filter("p", filter).must.iter().map(describe).collect()
    }

    #[test]
    fn filters_translate_condition_by_condition() {
        assert_eq!(
            described(&UnitFilter::default()),
            ["profile=p", "doc_type=unit"]
        );
        let filter = UnitFilter {
            path_prefixes: vec!["/Documents/Finance/".into(), "notes.txt".into()],
            modalities: vec!["document".into(), "text".into()],
            extensions: vec!["pdf".into()],
            kinds: vec!["page".into()],
            time_start: Some(100),
            time_end: Some(200),
        };
        assert_eq!(
            described(&filter),
            [
                "profile=p",
                "doc_type=unit",
                "should(folders=Documents/Finance | path=Documents/Finance | folders=notes.txt | path=notes.txt)",
                "modality=any[\"document\", \"text\"]",
                "ext=any[\"pdf\"]",
                "kind=any[\"page\"]",
                "content_time in [Some(100.0), Some(200.0))",
            ]
        );
        let open_end = UnitFilter {
            time_start: Some(5),
            ..UnitFilter::default()
        };
        assert_eq!(described(&open_end)[2], "content_time in [Some(5.0), None)");
        let root = UnitFilter {
            path_prefixes: vec!["Mail".into(), "/".into()],
            ..UnitFilter::default()
        };
        assert_eq!(
            described(&root).len(),
            2,
            "the root lets everything through"
        );
    }
}
