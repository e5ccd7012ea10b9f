//! Shell completions and man pages, generated from the clap definitions so they
//! never drift from the options restop really takes (`restop completions SHELL`,
//! `restop man [export]`; the Debian package installs both).

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
        return clap_mangen::Man::new(command).render(out);
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
