//! Turns positioned [`Run`]s into reading-order text: runs are grouped by writing
//! direction, sorted into lines by baseline (top to bottom), each line by position along
//! the baseline, with a space wherever runs are apart.

use super::extract::{Run, SPACE_GAP_EM};

/// A run expressed in its group's frame: `u` along the writing direction, `v` upwards.
struct Placed<'r> {
    run: &'r Run,
    u0: f64,
    u1: f64,
    v: f64,
}

/// Lays the runs of one page out as lines of text.
pub fn layout(runs: &[Run]) -> String {
    let mut lines = Vec::new();
    for group in direction_groups(runs) {
        lines.extend(layout_group(&group));
    }
    lines.join("\n")
}

/// Splits runs by writing direction; the direction holding the most text comes first.
fn direction_groups(runs: &[Run]) -> Vec<Vec<&Run>> {
    let mut groups: Vec<((f64, f64), Vec<&Run>, usize)> = Vec::new();
    for run in runs {
        let found = groups
            .iter_mut()
            .find(|(dir, _, _)| dir.0 * run.dir.0 + dir.1 * run.dir.1 > 0.99);
        match found {
            Some((_, members, chars)) => {
                members.push(run);
                *chars += run.text.len();
            }
            None => groups.push((run.dir, vec![run], run.text.len())),
        }
    }
    // Stable: equal-sized groups keep their drawing order.
    groups.sort_by(|a, b| b.2.cmp(&a.2));
    groups.into_iter().map(|(_, members, _)| members).collect()
}

fn layout_group(runs: &[&Run]) -> Vec<String> {
    let Some(first) = runs.first() else {
        return Vec::new();
    };
    let (dx, dy) = first.dir;
    let mut placed: Vec<Placed> = runs
        .iter()
        .map(|run| Placed {
            run,
            u0: run.start.0 * dx + run.start.1 * dy,
            u1: run.end.0 * dx + run.end.1 * dy,
            v: run.start.1 * dx - run.start.0 * dy,
        })
        .collect();
    placed.sort_by(|a, b| b.v.total_cmp(&a.v));
    let mut lines: Vec<Vec<Placed>> = Vec::new();
    let mut line_v = 0.0;
    let mut line_size = 0.0;
    for item in placed {
        let same_line = !lines.is_empty() && (line_v - item.v).abs() <= 0.5 * item.run.size.max(line_size);
        if !same_line {
            line_v = item.v;
            line_size = item.run.size;
            lines.push(Vec::new());
        } else if item.run.size > line_size {
            // The largest text on a line defines its baseline (not a superscript).
            line_v = item.v;
            line_size = item.run.size;
        }
        if let Some(line) = lines.last_mut() {
            line.push(item);
        }
    }
    lines.into_iter().map(join_line).collect()
}

fn join_line(mut line: Vec<Placed>) -> String {
    line.sort_by(|a, b| a.u0.total_cmp(&b.u0));
    let mut text = String::new();
    let mut cursor: Option<(f64, f64, f64, &str)> = None; // (u0, u1 reached, size, text)
    for item in &line {
        let size = item.run.size;
        if let Some((prev_u0, reached, prev_size, prev_text)) = cursor {
            let em = size.min(prev_size);
            let duplicate = prev_text == item.run.text && (item.u0 - prev_u0).abs() < 0.3 * em;
            if duplicate {
                continue;
            }
            let gap = item.u0 - reached;
            let apart = gap > SPACE_GAP_EM * em || gap < -0.3 * em;
            if apart && !text.ends_with(' ') && !item.run.text.starts_with(' ') {
                text.push(' ');
            }
        }
        text.push_str(&item.run.text);
        let reached = cursor.map_or(item.u1, |c| c.1.max(item.u1));
        cursor = Some((item.u0, reached, size, &item.run.text));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(text: &str, x: f64, y: f64, width: f64) -> Run {
        Run {
            text: text.to_string(),
            start: (x, y),
            end: (x + width, y),
            dir: (1.0, 0.0),
            size: 10.0,
        }
    }

    #[test]
    fn sorts_lines_top_down_and_cells_left_right() {
        let runs = vec![
            run("b2", 200.0, 680.0, 10.0),
            run("a1", 100.0, 700.0, 10.0),
            run("b1", 100.0, 680.0, 10.0),
            run("a2", 200.0, 701.0, 10.0),
        ];
        assert_eq!(layout(&runs), "a1 a2\nb1 b2");
    }

    #[test]
    fn joins_touching_runs_without_space() {
        let runs = vec![run("Hel", 100.0, 700.0, 15.0), run("lo", 115.2, 700.0, 10.0)];
        assert_eq!(layout(&runs), "Hello");
    }

    #[test]
    fn drops_fake_bold_duplicates() {
        let runs = vec![run("Bold", 100.0, 700.0, 20.0), run("Bold", 100.4, 700.0, 20.0)];
        assert_eq!(layout(&runs), "Bold");
    }
}
