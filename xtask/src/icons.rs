//! The UI's icon sprite: the lucide-static icons named in `crates/ui/icons.txt`, as `<symbol>`s
//! of one hidden `<svg>` written into each UI page where it says [`MARKER`], so the pages draw
//! them with `<use href="#icon-name">` and the wasm carries none of them. Only the listed icons
//! are bundled, never the whole set.
//!
//! The sprite is part of each page rather than a file of its own: Chrome loads an external
//! `<use href="sprite.svg#x">` as a separate SVG document for every icon named (one per
//! fragment), a few milliseconds of parsing each on the page's main thread while it opens.

use std::path::Path;

use anyhow::Context;
use anyhow::bail;

/// Where lucide-static's icons are, under the executor's npm packages.
const LUCIDE_DIR: &str = "web/executor/node_modules/lucide-static/icons";

/// The comment of a UI page that the sprite replaces.
const MARKER: &str = "<!-- icon sprite -->";

/// The UI pages, each of which draws icons.
const PAGES: [&str; 3] = ["sidepanel.html", "chat.html", "options.html"];

/// Writes the sprite of the icons `crates/ui/icons.txt` lists into the UI pages in `dist`.
pub(crate) fn write_sprite(root: &Path, dist: &Path) -> anyhow::Result<()> {
    let list_path = root.join("crates/ui/icons.txt");
    let list = std::fs::read_to_string(&list_path)
        .with_context(|| format!("reading {}", list_path.display()))?;
    let mut icons = Vec::new();
    for name in icon_names(&list) {
        let path = root.join(LUCIDE_DIR).join(format!("{name}.svg"));
        let svg = std::fs::read_to_string(&path).with_context(|| {
            format!(
                "icon {name:?} of crates/ui/icons.txt: no {} (is lucide-static installed?)",
                path.display()
            )
        })?;
        icons.push((name, svg));
    }
    let sprite = sprite(&icons)?;
    for page in PAGES {
        let path = dist.join(page);
        let html = std::fs::read_to_string(&path)
            .with_context(|| format!("reading {}", path.display()))?;
        std::fs::write(&path, with_sprite(&html, &sprite).with_context(|| page.to_owned())?)?;
    }
    Ok(())
}

/// `html` with the sprite in place of its [`MARKER`].
fn with_sprite(html: &str, sprite: &str) -> anyhow::Result<String> {
    if html.matches(MARKER).count() != 1 {
        bail!("the page must hold {MARKER} once, where the icon sprite goes");
    }
    Ok(html.replace(MARKER, sprite.trim_end()))
}

/// The names of an icon list: one a line, `#` comments and blank lines skipped.
fn icon_names(list: &str) -> impl Iterator<Item = &str> {
    list.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with('#'))
}

/// One sprite of `icons` (name, lucide SVG file), hidden. Each symbol keeps the icon's drawing
/// and lucide's stroke attributes, under the id `icon-{name}` (the page's other ids never start
/// so); the licence comment of the set is kept once.
fn sprite(icons: &[(&str, String)]) -> anyhow::Result<String> {
    let mut out = String::from("<svg class=\"sprite\" aria-hidden=\"true\">\n");
    if let Some(licence) = icons.first().and_then(|(_, svg)| licence_comment(svg)) {
        out.push_str(licence);
        out.push('\n');
    }
    for (name, svg) in icons {
        let body = svg_body(svg).with_context(|| format!("icon {name:?} is not an SVG file"))?;
        out.push_str(&format!(
            "<symbol id=\"icon-{name}\" viewBox=\"0 0 24 24\" fill=\"none\" stroke=\"currentColor\" \
             stroke-width=\"2\" stroke-linecap=\"round\" stroke-linejoin=\"round\">{body}</symbol>\n"
        ));
    }
    out.push_str("</svg>\n");
    Ok(out)
}

/// The `<!-- @license … -->` comment at the top of a lucide file.
fn licence_comment(svg: &str) -> Option<&str> {
    let start = svg.find("<!--")?;
    let end = svg[start..].find("-->")? + start + 3;
    Some(&svg[start..end])
}

/// What is inside the root `<svg …>` element, with the whitespace between elements dropped.
fn svg_body(svg: &str) -> anyhow::Result<String> {
    let Some(open) = svg.find("<svg") else { bail!("no <svg> element") };
    let Some(open_end) = svg[open..].find('>').map(|i| open + i + 1) else {
        bail!("<svg unclosed")
    };
    let Some(close) = svg.rfind("</svg>") else { bail!("no </svg>") };
    if close < open_end {
        bail!("</svg> before the content");
    }
    Ok(svg[open_end..close].lines().map(str::trim).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    const TRASH: &str = "<!-- @license lucide-static v1.62.0 - ISC -->\n<svg\n  class=\"lucide lucide-trash-2\"\n  xmlns=\"http://www.w3.org/2000/svg\"\n  viewBox=\"0 0 24 24\"\n>\n  <path d=\"M10 11v6\" />\n  <path d=\"M3 6h18\" />\n</svg>\n";

    #[test]
    fn a_sprite_holds_each_icon_as_a_symbol_and_the_licence_once() {
        let icons = [("trash-2", TRASH.to_owned()), ("other", TRASH.replace("M3", "M4"))];
        let sprite = sprite(&icons).unwrap();
        assert_eq!(sprite.matches("@license").count(), 1);
        assert!(sprite.starts_with("<svg class=\"sprite\" aria-hidden=\"true\">"));
        assert!(sprite.contains(
            "<symbol id=\"icon-trash-2\" viewBox=\"0 0 24 24\" fill=\"none\" stroke=\"currentColor\" stroke-width=\"2\" stroke-linecap=\"round\" stroke-linejoin=\"round\"><path d=\"M10 11v6\" /><path d=\"M3 6h18\" /></symbol>"
        ), "{sprite}");
        assert!(sprite.contains("<symbol id=\"icon-other\""));
        assert!(sprite.ends_with("</svg>\n"));
    }

    #[test]
    fn the_sprite_takes_the_place_of_the_marker_which_each_page_holds_once() {
        let page = "<body data-entry=\"chat\"><!-- icon sprite --></body>";
        assert_eq!(
            with_sprite(page, "<svg>x</svg>\n").unwrap(),
            "<body data-entry=\"chat\"><svg>x</svg></body>"
        );
        assert!(with_sprite("<body></body>", "<svg/>").is_err());
        assert!(with_sprite(&page.repeat(2), "<svg/>").is_err());
        for page in PAGES {
            let path =
                concat!(env!("CARGO_MANIFEST_DIR"), "/../crates/ui/static/").to_owned() + page;
            let html = std::fs::read_to_string(&path).unwrap();
            assert!(with_sprite(&html, "<svg/>").is_ok(), "{page}");
        }
    }

    #[test]
    fn names_skip_comments_and_blank_lines_and_bad_files_are_refused() {
        let names: Vec<&str> = icon_names("# comment\n\ncopy\n  x \n").collect();
        assert_eq!(names, ["copy", "x"]);
        assert!(svg_body("<path/>").is_err());
        assert!(sprite(&[("bad", "not svg".to_owned())]).is_err());
    }
}
