//! The UI's icon sprite: the lucide-static icons named in `crates/ui/icons.txt`, as `<symbol>`s
//! of one SVG file (`icons/sprite.svg` in the extension), so the pages draw them with `<use>` and
//! the wasm carries none of them. Only the listed icons are bundled, never the whole set.

use std::path::Path;

use anyhow::Context;
use anyhow::bail;

/// Where lucide-static's icons are, under the executor's npm packages.
const LUCIDE_DIR: &str = "web/executor/node_modules/lucide-static/icons";

/// Writes `icons/sprite.svg` into `dist` from the icons `crates/ui/icons.txt` lists.
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
    let out = dist.join("icons");
    std::fs::create_dir_all(&out)?;
    std::fs::write(out.join("sprite.svg"), sprite)?;
    Ok(())
}

/// The names of an icon list: one a line, `#` comments and blank lines skipped.
fn icon_names(list: &str) -> impl Iterator<Item = &str> {
    list.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with('#'))
}

/// One sprite of `icons` (name, lucide SVG file). Each symbol keeps the icon's drawing and
/// lucide's stroke attributes; the licence comment of the set is kept once.
fn sprite(icons: &[(&str, String)]) -> anyhow::Result<String> {
    let mut out = String::from("<svg xmlns=\"http://www.w3.org/2000/svg\">\n");
    if let Some(licence) = icons.first().and_then(|(_, svg)| licence_comment(svg)) {
        out.push_str(licence);
        out.push('\n');
    }
    for (name, svg) in icons {
        let body = svg_body(svg).with_context(|| format!("icon {name:?} is not an SVG file"))?;
        out.push_str(&format!(
            "<symbol id=\"{name}\" viewBox=\"0 0 24 24\" fill=\"none\" stroke=\"currentColor\" \
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
        assert!(sprite.contains(
            "<symbol id=\"trash-2\" viewBox=\"0 0 24 24\" fill=\"none\" stroke=\"currentColor\" stroke-width=\"2\" stroke-linecap=\"round\" stroke-linejoin=\"round\"><path d=\"M10 11v6\" /><path d=\"M3 6h18\" /></symbol>"
        ), "{sprite}");
        assert!(sprite.contains("<symbol id=\"other\""));
        assert!(sprite.ends_with("</svg>\n"));
    }

    #[test]
    fn names_skip_comments_and_blank_lines_and_bad_files_are_refused() {
        let names: Vec<&str> = icon_names("# comment\n\ncopy\n  x \n").collect();
        assert_eq!(names, ["copy", "x"]);
        assert!(svg_body("<path/>").is_err());
        assert!(sprite(&[("bad", "not svg".to_owned())]).is_err());
    }
}
