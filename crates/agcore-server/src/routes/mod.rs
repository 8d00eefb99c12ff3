//! The HTTP routes: one module per resource, and [`router::router`], which
//! assembles them with their layers.

pub mod agents;
pub mod chat;
pub mod health;
pub mod jsonl;
pub mod memories;
pub mod router;
pub mod search;
