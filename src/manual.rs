//! Shell completions and man pages, generated from the clap definitions so they
//! never drift from the options restop really takes (`restop completions SHELL`,
//! `restop man [export|fleet]`; the Debian package installs both). restop(1)'s
//! KEYS section is the interactive view's key table
//! (`interactive::keys::docs::roff_section`), placed before VERSION; restop-fleet(1)'s is the
//! fleet view's (`interactive::keys::fleet::roff_section`).

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
        "fleet" => "restop-fleet",
        _ => {
            return Err(io::Error::new(
                io::ErrorKind::NotFound,
                format!("no man page named {name} (have: export, fleet)"),
            ));
        }
    };
    let sub = command
        .get_subcommands()
        .find(|c| c.get_name() == name)
        .cloned()
        .ok_or_else(|| io::Error::new(io::ErrorKind::NotFound, format!("{name} is missing")))?
        .name(title);
    if name == "fleet" {
        let keys = crate::interactive::keys::fleet::roff_section();
        return with_section(clap_mangen::Man::new(sub), &keys, out);
    }
    clap_mangen::Man::new(sub).render(out)
}

/// A clap_mangen page with `section` (roff) placed before its VERSION (or at its end).
fn with_section(man: clap_mangen::Man, section: &str, out: &mut dyn Write) -> io::Result<()> {
    let mut page = Vec::new();
    man.render(&mut page)?;
    let page = String::from_utf8_lossy(&page);
    let at = page.find("\n.SH VERSION").map_or(page.len(), |i| i + 1);
    out.write_all(page[..at].as_bytes())?;
    out.write_all(section.as_bytes())?;
    out.write_all(page[at..].as_bytes())
}

/// restop(1): clap_mangen's page with the KEYS section added.
fn write_main_page(command: clap::Command, out: &mut dyn Write) -> io::Result<()> {
    let keys = crate::interactive::keys::docs::roff_section();
    with_section(clap_mangen::Man::new(command), &keys, out)
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
        // restop-fleet(1): every option and the fleet view's keys.
        let mut out = Vec::new();
        write_man_page(Some("fleet"), &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(text.contains("\\-\\-prometheus"), "{text}");
        assert!(text.contains("\\-\\-hosts\\-file"), "{text}");
        assert!(text.contains(&crate::interactive::keys::fleet::roff_section()));
    }
}
