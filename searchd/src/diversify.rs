//! Evidence spread for routine questions ("what do I usually do on Saturdays", "every
//! week"): the answer is a pattern over many days and files, so a reply of five units of
//! one file (or of one day) shows the pattern less well than units from different files
//! and dates. When the planner reads a routine, the ranked units are reordered greedily:
//! a unit is taken in rank order while its file has fewer than [`PER_FILE`] units and its
//! day fewer than [`PER_DAY`] among those taken; the others follow in rank order.

/// Units of one file taken before the other files' units are taken.
pub const PER_FILE: usize = 2;
/// Units of one day taken before the other days' units are taken.
pub const PER_DAY: usize = 2;
/// How much deeper than the reply a routine question is ranked, to find other files.
pub const DEPTH_FACTOR: usize = 3;

/// Reorders `items` (in rank order, each with its file and its day when dated) and keeps
/// `limit`: spread first, then the rest in rank order.
pub fn spread<T>(items: Vec<(T, String, Option<String>)>, limit: usize) -> Vec<T> {
    let mut per_file: std::collections::HashMap<String, usize> = Default::default();
    let mut per_day: std::collections::HashMap<String, usize> = Default::default();
    let mut taken = Vec::with_capacity(limit.min(items.len()));
    let mut deferred = Vec::new();
    for (item, file, day) in items {
        let file_count = per_file.entry(file).or_default();
        let day_full = day
            .as_ref()
            .is_some_and(|d| per_day.get(d).copied().unwrap_or(0) >= PER_DAY);
        if taken.len() < limit && *file_count < PER_FILE && !day_full {
            *file_count += 1;
            if let Some(day) = day {
                *per_day.entry(day).or_default() += 1;
            }
            taken.push(item);
        } else {
            deferred.push(item);
        }
    }
    taken.extend(deferred);
    taken.truncate(limit);
    taken
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(n: u32, file: &str, day: Option<&str>) -> (u32, String, Option<String>) {
        (n, file.to_string(), day.map(str::to_string))
    }

    #[test]
    fn one_file_does_not_fill_the_reply() {
        let items = vec![
            item(1, "a", None),
            item(2, "a", None),
            item(3, "a", None),
            item(4, "a", None),
            item(5, "b", None),
            item(6, "c", None),
        ];
        assert_eq!(spread(items, 4), vec![1, 2, 5, 6]);
    }

    #[test]
    fn one_day_does_not_fill_the_reply() {
        let items = vec![
            item(1, "a", Some("2025-03-01")),
            item(2, "b", Some("2025-03-01")),
            item(3, "c", Some("2025-03-01")),
            item(4, "d", Some("2025-03-08")),
            item(5, "e", None),
        ];
        assert_eq!(spread(items, 4), vec![1, 2, 4, 5]);
    }

    #[test]
    fn the_rest_follows_in_rank_order_when_nothing_else_is_left() {
        let items = vec![
            item(1, "a", None),
            item(2, "a", None),
            item(3, "a", None),
            item(4, "a", None),
        ];
        assert_eq!(spread(items, 3), vec![1, 2, 3]);
        assert_eq!(
            spread(Vec::<(u32, String, Option<String>)>::new(), 3),
            Vec::<u32>::new()
        );
    }
}
