//! pgvector's text form of vectors: `[x1,x2,…]`.

/// `vector` as pgvector text; Rust's shortest round-trip `f32` form, so
/// the server parses back the same values.
pub(crate) fn to_text(vector: &[f32]) -> String {
    let mut out = String::with_capacity(vector.len() * 12 + 2);
    out.push('[');
    for (i, x) in vector.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str(&x.to_string());
    }
    out.push(']');
    out
}
