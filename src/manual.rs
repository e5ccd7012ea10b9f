//! Shell completions and man pages, generated from the clap definitions so they
//! never drift from the options restop really takes (`restop completions SHELL`,
//! `restop man [export]`; the Debian package installs both). restop(1)'s
//! KEYS section is the interactive view's key table
//! (`interactive::keys::docs::roff_section`), placed before VERSION.

use crate::cli::Cli;
use clap::CommandFactory;
use std::io::{self, Write};

/// Writes the completion script for `shell`.
pub fn write_completions(shell: clap_complete::Shell, out: &mut dyn Write) {
    let mut command = Cli::command();
    clap_complete::generate(shell, &mut command, "restop", out);
}

/// Writes restop(1), or the page of subcommand `page` (restop-export(1)).
pub fn write_man_page(page: Option<&str>, out: &mut dyn Write) -> io::Result<()> {
    let command = Cli::command();
    let Some(name) = page else {
        return write_main_page(command, out);
    };
    // Pages of the subcommands with options of their own.
    let title = match name {
        "export" => "restop-export",
        _ => {
            return Err(io::Error::new(
                io::ErrorKind::NotFound,
                format!("no man page named {name} (have: export)"),
            ));
        }
    };
    let sub = command
        .get_subcommands()
        .find(|c| c.get_name() == name)
        .cloned()
        .ok_or_else(|| io::Error::new(io::ErrorKind::NotFound, "export is missing"))?
        .name(title);
    clap_mangen::Man::new(sub).render(out)
}

/// restop(1): clap_mangen's page with the KEYS section added.
fn write_main_page(command: clap::Command, out: &mut dyn Write) -> io::Result<()> {
    let mut page = Vec::new();
    clap_mangen::Man::new(command).render(&mut page)?;
    let page = String::from_utf8_lossy(&page);
    let keys = crate::interactive::keys::docs::roff_section();
    let at = page.find("\n.SH VERSION").map_or(page.len(), |i| i + 1);
    out.write_all(page[..at].as_bytes())?;
    out.write_all(keys.as_bytes())?;
    out.write_all(page[at..].as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_shell_gets_a_script_naming_the_subcommands() {
        use clap::ValueEnum;
        for shell in clap_complete::Shell::value_variants() {
            let mut out = Vec::new();
            write_completions(*shell, &mut out);
            let text = String::from_utf8(out).unwrap();
            assert!(text.contains("export"), "{shell}");
            assert!(text.contains("--json"), "{shell}");
        }
    }

    #[test]
    fn man_pages_are_roff_with_the_options() {
        let mut out = Vec::new();
        write_man_page(None, &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(
            text.starts_with(".ie") || text.contains(".TH restop 1"),
            "{text}"
        );
        assert!(text.contains("\\-\\-json"));
        // The KEYS section is the key table's, before VERSION.
        let keys = crate::interactive::keys::docs::roff_section();
        assert!(text.contains(&keys), "{text}");
        if let Some(version) = text.find(".SH VERSION") {
            assert!(text.find(".SH KEYS").is_some_and(|k| k < version));
        }
        let mut out = Vec::new();
        write_man_page(Some("export"), &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        // clap_mangen writes the page title unescaped (`.TH restop-export 1`).
        assert!(
            text.contains(".TH restop-export 1") || text.contains(".TH restop\\-export 1"),
            "{text}"
        );
        assert!(text.contains("\\-\\-owners\\-by"));
        assert!(write_man_page(Some("nope"), &mut Vec::new()).is_err());
    }
}
