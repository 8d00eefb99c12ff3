//! [`RetrieverName`]: the retrievers `agcore eval` compares, by their
//! command-line names. Eval-only ablations are hidden from `--help` but
//! can be named alone (`--retriever hybrid-z-score`); `all` runs them too.

/// Every retriever agcore ships, by its command-line name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
pub enum RetrieverName {
    /// The product's lexical path: the store's own BM25 search
    /// (`MemoryStore::search`), what agents use without an embedder.
    #[cfg_attr(feature = "clap", value(alias = "store"))]
    Lexical,
    /// The product's dense path: cosine nearest neighbours of the query's
    /// embedding (`HybridStore` in dense mode; needs `--embedder`).
    Dense,
    /// The product's hybrid path: lexical and dense fused by the store's
    /// default, an equal-weight sum of normalised scores (`HybridStore`, what
    /// agents use with an embedder; needs `--embedder`).
    Hybrid,
    /// Eval-only ablation: `lexical` without the stores' context field
    /// (plain BM25 in a second in-memory store holding the same memories).
    #[cfg_attr(feature = "clap", value(hide = true))]
    LexicalNoContextField,
    /// Eval-only ablation: `lexical` with every namespace in one store, so
    /// BM25's collection statistics (idf, mean lengths) are those of all
    /// namespaces together (the protocol before one store per namespace).
    #[cfg_attr(feature = "clap", value(hide = true))]
    LexicalOneStore,
    /// Eval-only ablation: `lexical` with neighbouring-turn context.
    #[cfg_attr(feature = "clap", value(hide = true))]
    LexicalContext,
    /// Eval-only ablation: `hybrid` with neighbouring-turn context on the lexical list.
    #[cfg_attr(feature = "clap", value(hide = true))]
    HybridContext,
    /// Eval-only ablation: `hybrid` with context on both lists.
    #[cfg_attr(feature = "clap", value(hide = true))]
    HybridContextBoth,
    /// Eval-only ablation: `hybrid` fused by reciprocal rank fusion (k = 60).
    #[cfg_attr(feature = "clap", value(hide = true))]
    HybridRrf,
    /// Eval-only ablation: `hybrid` fused by the equal-weight sum with
    /// theoretical-minimum–max normalisation (`Fusion::TheoreticalMinMax`).
    #[cfg_attr(feature = "clap", value(hide = true))]
    HybridTmm,
    /// Eval-only ablation: `hybrid` with one vector per memory (no
    /// contextual window embeddings).
    #[cfg_attr(feature = "clap", value(hide = true))]
    HybridOneVector,
    /// Eval-only ablation: `dense` with one vector per memory.
    #[cfg_attr(feature = "clap", value(hide = true))]
    DenseOneVector,
    /// Eval-only ablation: `hybrid` with group evidence (`GroupEvidence`
    /// over sessions, off in the product by default).
    #[cfg_attr(feature = "clap", value(hide = true))]
    HybridGroup,
    /// Eval-only ablation: `dense` with group evidence.
    #[cfg_attr(feature = "clap", value(hide = true))]
    DenseGroup,
    /// Eval-only ablation: `hybrid` fused by the equal-weight sum with
    /// z-score normalisation (`Fusion::ZScore`).
    #[cfg_attr(feature = "clap", value(hide = true))]
    HybridZScore,
    /// Eval-only ablation: `hybrid` with Rocchio pseudo-relevance feedback
    /// on the query vector (`DenseFeedback`, off in the product by default).
    #[cfg_attr(feature = "clap", value(hide = true))]
    HybridPrf,
    /// Eval-only ablation: `dense` with Rocchio pseudo-relevance feedback.
    #[cfg_attr(feature = "clap", value(hide = true))]
    DensePrf,
    /// `MemoryRetriever` rescoring store candidates with `TextOverlap` (Dice).
    TextOverlap,
    /// `MemoryRetriever` rescoring store candidates with `Bm25`.
    Bm25,
    /// `ContextualBm25`: stemmed BM25F with neighbouring turns as context.
    ContextualBm25,
    /// `ContextualBm25` with RM3 pseudo-relevance feedback.
    ContextualBm25Rm3,
    /// All of the above (dense and hybrid only with `--embedder`), one after
    /// the other on the same ingested store.
    All,
}

impl RetrieverName {
    /// The retrievers that need no embedder, in the order `all` runs them.
    const LEXICAL: [Self; 8] = [
        Self::Lexical,
        Self::LexicalNoContextField,
        Self::LexicalOneStore,
        Self::LexicalContext,
        Self::TextOverlap,
        Self::Bm25,
        Self::ContextualBm25,
        Self::ContextualBm25Rm3,
    ];

    /// The retrievers this name stands for (`with_dense`: an embedder is
    /// configured): `all` runs the dense and hybrid ones first.
    pub fn expand(self, with_dense: bool) -> Vec<Self> {
        const DENSE: [RetrieverName; 13] = [
            RetrieverName::Hybrid,
            RetrieverName::HybridGroup,
            RetrieverName::HybridPrf,
            RetrieverName::HybridOneVector,
            RetrieverName::HybridRrf,
            RetrieverName::HybridTmm,
            RetrieverName::HybridZScore,
            RetrieverName::HybridContext,
            RetrieverName::HybridContextBoth,
            RetrieverName::Dense,
            RetrieverName::DenseGroup,
            RetrieverName::DensePrf,
            RetrieverName::DenseOneVector,
        ];
        match self {
            Self::All if with_dense => DENSE.into_iter().chain(Self::LEXICAL).collect(),
            Self::All => Self::LEXICAL.to_vec(),
            other => vec![other],
        }
    }

    /// Whether it searches vectors (needs `--embedder`; its index time
    /// includes the background embedding).
    pub fn needs_embedder(self) -> bool {
        match self {
            Self::Dense
            | Self::Hybrid
            | Self::HybridContext
            | Self::HybridContextBoth
            | Self::HybridRrf
            | Self::HybridTmm
            | Self::HybridZScore
            | Self::HybridOneVector
            | Self::DenseOneVector
            | Self::HybridGroup
            | Self::DenseGroup
            | Self::HybridPrf
            | Self::DensePrf => true,
            Self::Lexical
            | Self::LexicalNoContextField
            | Self::LexicalOneStore
            | Self::LexicalContext
            | Self::TextOverlap
            | Self::Bm25
            | Self::ContextualBm25
            | Self::ContextualBm25Rm3
            | Self::All => false,
        }
    }

    /// The command-line name.
    pub fn label(self) -> &'static str {
        match self {
            Self::Lexical => "lexical",
            Self::Dense => "dense",
            Self::Hybrid => "hybrid",
            Self::LexicalNoContextField => "(lexical, no ctx field)",
            Self::LexicalOneStore => "(lexical, one store)",
            Self::LexicalContext => "(lexical, context)",
            Self::HybridContext => "(hybrid, context)",
            Self::HybridContextBoth => "(hybrid, ctx both)",
            Self::HybridRrf => "(hybrid, rrf)",
            Self::HybridTmm => "(hybrid, tm2c2)",
            Self::HybridZScore => "(hybrid, z-score)",
            Self::HybridOneVector => "(hybrid, one vector)",
            Self::DenseOneVector => "(dense, one vector)",
            Self::HybridGroup => "(hybrid, group)",
            Self::DenseGroup => "(dense, group)",
            Self::HybridPrf => "(hybrid, prf)",
            Self::DensePrf => "(dense, prf)",
            Self::TextOverlap => "text-overlap",
            Self::Bm25 => "bm25",
            Self::ContextualBm25 => "contextual-bm25",
            Self::ContextualBm25Rm3 => "contextual-bm25-rm3",
            Self::All => "all",
        }
    }
}

#[cfg(all(test, feature = "clap"))]
mod tests {
    use clap::ValueEnum;

    use super::RetrieverName;

    #[test]
    fn hidden_ablations_can_be_named_alone() {
        for (name, want) in [
            ("hybrid-z-score", RetrieverName::HybridZScore),
            ("hybrid-prf", RetrieverName::HybridPrf),
            ("dense-group", RetrieverName::DenseGroup),
        ] {
            assert_eq!(RetrieverName::from_str(name, false), Ok(want));
            assert!(RetrieverName::All.expand(true).contains(&want), "{name}");
        }
        // `all` runs every retriever once; without an embedder only those
        // that need none.
        for name in RetrieverName::value_variants() {
            let runs = |dense| {
                RetrieverName::All
                    .expand(dense)
                    .iter()
                    .filter(|n| *n == name)
                    .count()
            };
            let want = usize::from(*name != RetrieverName::All);
            assert_eq!(runs(true), want, "{name:?}");
            assert_eq!(
                runs(false),
                want * usize::from(!name.needs_embedder()),
                "{name:?}"
            );
        }
        let shown: Vec<_> = RetrieverName::value_variants()
            .iter()
            .filter_map(|v| v.to_possible_value())
            .filter(|v| !v.is_hide_set())
            .map(|v| v.get_name().to_owned())
            .collect();
        assert!(!shown.iter().any(|n| n.starts_with("hybrid-")), "{shown:?}");
    }
}
