//! Grouping ranked unit hits by file, and scoring the files. Pure functions.

use std::collections::HashMap;

/// The ranked units of one file and the file's score.
#[derive(Debug, Clone, PartialEq)]
pub struct FileGroup<T> {
    pub file_id: String,
    pub score: f32,
    /// The file's units in rank order.
    pub items: Vec<T>,
}

/// How many units after a file's best one add to its score.
pub const EXTRA_UNITS: usize = 3;
/// The weight of each of those units' scores.
pub const EXTRA_WEIGHT: f32 = 0.1;

/// Groups `(file_id, score, item)` hits, given in rank order, by file. A file's score is
/// its best (first) unit's score plus [`EXTRA_WEIGHT`] × the sum of the scores of its next
/// [`EXTRA_UNITS`] units. Files come best first; files with equal scores keep the order of
/// their first hit; each file's items keep rank order.
pub fn group_by_file<T>(hits: impl IntoIterator<Item = (String, f32, T)>) -> Vec<FileGroup<T>> {
    let mut groups: Vec<(Vec<f32>, FileGroup<T>)> = Vec::new();
    let mut position: HashMap<String, usize> = HashMap::new();
    for (file_id, score, item) in hits {
        let index = *position.entry(file_id.clone()).or_insert_with(|| {
            groups.push((
                Vec::new(),
                FileGroup {
                    file_id,
                    score: 0.0,
                    items: Vec::new(),
                },
            ));
            groups.len() - 1
        });
        let (scores, group) = &mut groups[index];
        scores.push(score);
        group.items.push(item);
    }
    let mut files: Vec<FileGroup<T>> = groups
        .into_iter()
        .map(|(scores, mut group)| {
            let best = scores[0];
            let extra = scores
                .iter()
                .skip(1)
                .take(EXTRA_UNITS)
                .copied()
                .sum::<f32>();
            group.score = best + EXTRA_WEIGHT * extra;
            group
        })
        .collect();
    // A stable sort: ties keep first-hit order.
    files.sort_by(|a, b| b.score.total_cmp(&a.score));
    files
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hit(file: &str, score: f32, item: u32) -> (String, f32, u32) {
        (file.to_string(), score, item)
    }

    fn summary(groups: &[FileGroup<u32>]) -> Vec<(&str, f32, Vec<u32>)> {
        groups
            .iter()
            .map(|g| (g.file_id.as_str(), g.score, g.items.clone()))
            .collect()
    }

    #[test]
    fn empty_input_gives_no_files() {
        assert!(group_by_file(Vec::<(String, f32, u32)>::new()).is_empty());
    }

    #[test]
    fn items_keep_rank_order_within_a_file() {
        let groups = group_by_file(vec![
            hit("a", 1.0, 1),
            hit("b", 0.9, 2),
            hit("a", 0.0, 3),
            hit("b", 0.0, 4),
            hit("a", 0.0, 5),
        ]);
        assert_eq!(
            summary(&groups),
            vec![("a", 1.0, vec![1, 3, 5]), ("b", 0.9, vec![2, 4])]
        );
    }

    #[test]
    fn further_units_add_a_tenth_of_their_scores() {
        let groups = group_by_file(vec![hit("a", 1.0, 1), hit("a", 0.5, 2)]);
        assert_eq!(groups[0].score, 1.0 + 0.1 * 0.5);
    }

    #[test]
    fn at_most_three_further_units_count() {
        let hits = (0..6).map(|i| hit("a", 1.0, i));
        let groups = group_by_file(hits);
        assert_eq!(groups.len(), 1);
        assert_eq!(groups[0].score, 1.0 + 0.1 * 3.0);
        // All units stay in the group, only the score is capped.
        assert_eq!(groups[0].items, vec![0, 1, 2, 3, 4, 5]);
    }

    #[test]
    fn the_bonus_can_reorder_files() {
        // "b" starts lower but its further units lift it above "a".
        let groups = group_by_file(vec![hit("a", 1.0, 1), hit("b", 0.95, 2), hit("b", 0.9, 3)]);
        assert_eq!(
            summary(&groups),
            vec![("b", 0.95 + 0.1 * 0.9, vec![2, 3]), ("a", 1.0, vec![1])]
        );
    }

    #[test]
    fn ties_keep_the_order_of_first_hits() {
        let groups = group_by_file(vec![
            hit("c", 0.5, 1),
            hit("a", 0.5, 2),
            hit("b", 0.5, 3),
            hit("d", 0.7, 4),
        ]);
        let order: Vec<&str> = groups.iter().map(|g| g.file_id.as_str()).collect();
        assert_eq!(order, vec!["d", "c", "a", "b"]);
    }

    #[test]
    fn the_best_unit_is_the_first_not_the_highest() {
        // Hits arrive in rank order; the first one of a file is its best by definition.
        let groups = group_by_file(vec![hit("a", 0.2, 1), hit("a", 0.9, 2)]);
        assert_eq!(groups[0].score, 0.2 + 0.1 * 0.9);
    }
}
