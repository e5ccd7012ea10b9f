//! Phase 3: restop's own objects are no one's usage. The only one restop ever
//! creates is the device context opened to read limits through libibverbs,
//! which may be open while the dumps run (the library is read side by side
//! with them). The object round leaves such objects out of every tally and
//! counts them per device; the summary needs nothing taken out, because it is
//! read before restop opens anything.

use super::latest_dumps::LatestDumps;
use crate::model::ResourceType;

/// How many of restop's own objects the dumps of `dumped` (this
/// collection's) found and left out.
pub(super) fn own_in_dumps(dumps: &LatestDumps, dumped: &[ResourceType]) -> u64 {
    dumped
        .iter()
        .filter_map(|t| dumps.types.get(t))
        .flat_map(|v| v.own.values())
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::collect::live::latest_dumps::TypeDump;

    #[test]
    fn only_this_collections_dumps_are_counted() {
        let mut dumps = LatestDumps::default();
        let mut ctx = TypeDump::default();
        ctx.own.insert(3, 1);
        ctx.own.insert(4, 1);
        dumps.types.insert(ResourceType::Ctx, ctx);
        let mut pd = TypeDump::default();
        pd.own.insert(3, 5);
        dumps.types.insert(ResourceType::Pd, pd);
        assert_eq!(own_in_dumps(&dumps, &[ResourceType::Ctx]), 2);
        assert_eq!(
            own_in_dumps(&dumps, &[ResourceType::Ctx, ResourceType::Pd]),
            7
        );
        assert_eq!(own_in_dumps(&dumps, &[]), 0);
    }
}
