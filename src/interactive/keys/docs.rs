//! The key table written for the documentation: the man page's KEYS
//! section (roff) and the README's key list (markdown, between two markers;
//! the test below writes the list the table makes and compares README.md
//! with it, so its failure shows the list to paste). Both are read from
//! `table::COMMANDS`, so they name the keys the help box names.

use super::table::COMMANDS;

/// The KEYS section of restop(1).
pub(crate) fn roff_section() -> String {
    let mut out = String::from(".SH KEYS\n");
    out.push_str("The keys of the interactive view, as its help box (\\fB?\\fR) lists them.\n");
    for command in COMMANDS {
        let Some(help) = command.help else { continue };
        out.push_str(&format!(
            ".TP\n\\fB{}\\fR\n\\&{}\n",
            roff(command.label),
            roff(help)
        ));
    }
    out
}

/// Text made safe for roff: backslashes and hyphens escaped.
pub(super) fn roff(text: &str) -> String {
    text.replace('\\', "\\\\").replace('-', "\\-")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The line before the README's key list.
    pub(super) const README_START: &str =
        "<!-- keys: generated from src/interactive/keys/table.rs (keys::docs::markdown_list) -->";
    /// The line after it.
    pub(super) const README_END: &str = "<!-- /keys -->";

    /// Every documented row as a markdown table: keys, what they do.
    pub(super) fn markdown_list() -> String {
        let mut out = String::from("| keys | what they do |\n|---|---|\n");
        for (label, help) in crate::interactive::keys::help_rows() {
            out.push_str(&format!("| `{label}` | {help} |\n"));
        }
        out
    }

    /// The README's key list is the table's: regenerate it with
    /// `keys::docs::markdown_list` when a key changes.
    #[test]
    fn the_readme_key_list_is_the_table() {
        let readme = include_str!("../../../README.md");
        let start = readme
            .find(README_START)
            .map(|i| i + README_START.len() + 1);
        let end = readme.find(README_END);
        let (Some(start), Some(end)) = (start, end) else {
            panic!("README.md has no key list between {README_START} and {README_END}");
        };
        assert_eq!(&readme[start..end], markdown_list());
    }

    #[test]
    fn the_man_page_section_names_every_documented_row() {
        let section = roff_section();
        assert!(section.starts_with(".SH KEYS\n"));
        for (label, help) in crate::interactive::keys::help_rows() {
            assert!(section.contains(&roff(label)), "{label}");
            assert!(section.contains(&roff(help)), "{help}");
        }
        assert!(section.contains("\\fBq  Ctrl\\-C\\fR"));
    }
}
