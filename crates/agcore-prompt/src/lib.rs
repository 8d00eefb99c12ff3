//! Prompts for agcore agents.
