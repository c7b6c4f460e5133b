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
/// a third of its length in characters, rounded up, from 1 to 3, and 1 for
/// a name of at most five characters (two edits of four letters leave
/// another word: `iban` is not `atan`).
pub fn suggestion_limit(name: &str) -> usize {
    let length = name.chars().count();
    if length <= 5 {
        1
    } else {
        length.div_ceil(3).min(3)
    }
}

/// The fewest characters a name needs for [`closest`] to suggest a
/// candidate holding it as a word.
const SHORTEST_WORD: usize = 3;

/// Whether `name` is one of the `_`-separated words of `candidate`
/// (`uuid` of `hashed_uuid`), so a candidate that holds it is a sensible
/// suggestion for a callee ([`closest_callee`]) however many characters it
/// adds. A candidate holding `name` as a word contains it, so a caller may
/// keep only the candidates that contain `name` (or are within
/// [`suggestion_limit`] of its length) before asking.
pub fn holds_word(candidate: &str, name: &str) -> bool {
    name.chars().count() >= SHORTEST_WORD && candidate != name && candidate.split('_').any(|word| word == name)
}

/// The candidate closest to `name` by edit distance, if one is reasonably
/// close (within [`suggestion_limit`] edits; ties go to the alphabetically
/// first); a candidate that differs from `name` only in letter case is the
/// closest of all (`de_de` means `de_DE`). Names starting `__` are internal
/// and never suggested. The one rule behind every "did you mean" of the project.
pub fn closest<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let limit = suggestion_limit(name);
    let distance = |n: &str| if n.eq_ignore_ascii_case(name) { 0 } else { edit_distance(name, n) };
    candidates
        .into_iter()
        .filter(|n| !n.starts_with("__") && *n != name)
        .map(|n| (distance(n), n))
        .filter(|(d, _)| *d <= limit)
        .min()
        .map(|(_, n)| n)
}

/// [`closest_preferring`] for a name called as a node or module: when no
/// name is close by edits, the shortest candidate holding `name` as a word
/// ([`holds_word`]; ties alphabetically), so `uuid` finds `hashed_uuid`.
/// Only callees take this second rule: a misspelt binding named like a
/// word of a node (`cycle`, `cycle_walk`) means no node.
pub fn closest_callee<'a>(
    name: &str,
    declared: impl IntoIterator<Item = &'a str> + Clone,
    others: impl IntoIterator<Item = &'a str> + Clone,
) -> Option<&'a str> {
    closest_preferring(name, declared.clone(), others.clone()).or_else(|| {
        declared
            .into_iter()
            .chain(others)
            .filter(|n| !n.starts_with("__") && holds_word(n, name))
            .map(|n| (n.chars().count(), n))
            .min()
            .map(|(_, n)| n)
    })
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
    fn a_name_in_the_wrong_case_finds_its_candidate() {
        assert_eq!(closest("de_de", ["de_DE", "en_GB"]), Some("de_DE"), "two edits, but only the case differs");
        assert_eq!(closest("FULL_NAME", ["full_names", "full_name"]), Some("full_name"));
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
    fn short_names_allow_one_edit_and_a_name_may_be_a_word_of_a_longer_one() {
        assert_eq!(closest("iban", ["atan", "abs"]), None, "two edits of four letters is another word");
        assert_eq!(closest("ibam", ["iban", "atan"]), Some("iban"));
        let callee = |name, cands: &[&'static str]| closest_callee(name, [], cands.iter().copied());
        assert_eq!(callee("uuid", &["hashed_uuid", "uuid_v7_like", "add"]), Some("hashed_uuid"), "the shortest holder");
        assert_eq!(closest("uuid", ["hashed_uuid"]), None, "only a callee looks for words");
        assert_eq!(callee("ful_name", &["full_names", "full_name"]), Some("full_name"));
        assert_eq!(callee("id", &["hashed_id"]), None, "too short to look for as a word");
        assert!(holds_word("hashed_uuid", "uuid") && !holds_word("uuidx", "uuid") && !holds_word("uuid", "uuid"));
    }

    #[test]
    fn the_programs_own_names_are_preferred() {
        assert_eq!(closest("idd", ["add", "id"]), Some("add"), "a tie goes to the alphabetically first");
        assert_eq!(closest_preferring("idd", ["id", "user"], ["add", "abs"]), Some("id"));
        assert_eq!(closest_preferring("ad", ["user"], ["add"]), Some("add"), "no close declared name");
        assert_eq!(closest_preferring("zzz", ["user"], ["add"]), None);
    }
}
