//! Which query words a search must match: the MaxScore plan of
//! [`agcore_search::pruning`], with the cost of a MySQL round
//! ([`MIN_SAVED_ROWS`]).

pub(crate) use agcore_search::pruning::MIN_SAVED_ROWS;
