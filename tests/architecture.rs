//! ARCHITECTURE.md names only paths that exist: every inline code span with a `/` in it (and no
//! space or placeholder) is a file or folder of the repository.

use cudagen_tests::root;

/// The inline code spans of `text` that name a repository path.
fn paths(text: &str) -> Vec<&str> {
    let spans = text.split('`').skip(1).step_by(2);
    spans.filter(|s| s.contains('/') && !s.contains([' ', '<', '*', '>', '{'])).collect()
}

#[test]
fn every_path_architecture_md_names_exists() {
    let text = std::fs::read_to_string(root().join("ARCHITECTURE.md")).unwrap();
    let named = paths(&text);
    assert!(named.len() > 30, "ARCHITECTURE.md names {} paths", named.len());
    let missing: Vec<&str> = named.iter().copied().filter(|p| !root().join(p).exists()).collect();
    assert!(missing.is_empty(), "ARCHITECTURE.md names paths that do not exist: {missing:?}");
}

#[test]
fn a_missing_path_is_found() {
    let named = paths("see `generator/src/nothing.rs` and `a b/c`, not `x`");
    assert_eq!(named, ["generator/src/nothing.rs"]);
    assert!(!root().join(named[0]).exists());
}
