//! "Did you mean" hints: the one rule behind every suggestion of a close
//! name (a misspelt node, binding, input or module), by edit distance.

/// Edit distance between two names (for "did you mean" hints): insertions,
/// deletions, substitutions and swaps of two adjacent characters (`nmae` is
/// one edit from `name`) each count one.
pub fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    // Three rows of the optimal-string-alignment table: two back, one back, this one.
    let mut before: Vec<usize> = vec![0; b.len() + 1];
    let mut last: Vec<usize> = (0..=b.len()).collect();
    let mut row: Vec<usize> = vec![0; b.len() + 1];
    for i in 1..=a.len() {
        row[0] = i;
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            row[j] = (last[j] + 1).min(row[j - 1] + 1).min(last[j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                row[j] = row[j].min(before[j - 2] + 1);
            }
        }
        std::mem::swap(&mut before, &mut last);
        std::mem::swap(&mut last, &mut row);
    }
    last[b.len()]
}

/// The most edits a suggestion for `name` may be away from it ([`closest`]):
/// a third of its length in characters, rounded up, from 1 to 3.
pub fn suggestion_limit(name: &str) -> usize {
    name.chars().count().div_ceil(3).clamp(1, 3)
}

/// The candidate closest to `name` by edit distance, if one is reasonably
/// close (within a third of the name's length, at most 3 edits; ties go to
/// the alphabetically first). Names starting `__` are internal and never
/// suggested. The one rule behind every "did you mean" of the project.
pub fn closest<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let limit = suggestion_limit(name);
    candidates
        .into_iter()
        .filter(|n| !n.starts_with("__") && *n != name)
        .map(|n| (edit_distance(name, n), n))
        .filter(|(d, _)| *d <= limit)
        .min()
        .map(|(_, n)| n)
}

/// [`closest`], preferring the names the program declares: the closest of
/// `declared` (its bindings, inputs and modules in scope) when one is close
/// enough, else the closest of `others` (the library's node names). A typo
/// is far likelier to be of a name the user wrote: `idd` means `id`, not `add`.
pub fn closest_preferring<'a>(
    name: &str,
    declared: impl IntoIterator<Item = &'a str>,
    others: impl IntoIterator<Item = &'a str>,
) -> Option<&'a str> {
    closest(name, declared).or_else(|| closest(name, others))
}

/// `did you mean 'x'?` for `name` among `candidates`, if one is close.
pub fn did_you_mean<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<String> {
    closest(name, candidates).map(|s| format!("did you mean '{s}'?"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggestions_find_near_misses() {
        assert_eq!(closest("user_idd", ["user_id", "bucket"]), Some("user_id"));
        assert_eq!(closest("x", ["x"]), None, "a name is not its own suggestion");
        assert_eq!(closest("hash", ["__hash"]), None, "internal names are never suggested");
    }

    #[test]
    fn a_swap_of_two_letters_is_one_edit() {
        assert_eq!(edit_distance("nmae", "name"), 1);
        assert_eq!(edit_distance("name", "nmae"), 1);
        assert_eq!(edit_distance("nmae", "max"), 2);
        assert_eq!(edit_distance("abc", "ca"), 3, "no edit of a swapped pair again (optimal alignment)");
        assert_eq!(edit_distance("", "ab"), 2);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(closest("nmae", ["max", "name"]), Some("name"));
    }

    #[test]
    fn the_programs_own_names_are_preferred() {
        assert_eq!(closest("idd", ["add", "id"]), Some("add"), "a tie goes to the alphabetically first");
        assert_eq!(closest_preferring("idd", ["id", "user"], ["add", "abs"]), Some("id"));
        assert_eq!(closest_preferring("ad", ["user"], ["add"]), Some("add"), "no close declared name");
        assert_eq!(closest_preferring("zzz", ["user"], ["add"]), None);
    }
}
