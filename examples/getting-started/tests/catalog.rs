/// catalog.json must be what the Rust types export. After changing a type, regenerate it with
/// `WIREPLAN_UPDATE_CATALOG=1 cargo test`.
#[test]
fn the_catalog_is_current() {
    wireplan_runtime::catalog::assert_current(&hello::registry(), "catalog.json");
}
