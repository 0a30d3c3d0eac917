//! [`take_out`]: the aggregations of a tree that run on the response
//! rather than in the search (bucket scripts, sibling pipelines), taken out
//! of it with where they sit.

use super::agg_tree::AggNode;
use crate::error::Result;

/// What `pick` made of each node it took (in tree order) and the tree
/// without them. `pick` sees a node's level (the node and its siblings),
/// the node, and the names of the aggregations that lead to the level; a
/// node it takes is not descended into.
pub(crate) type Picker<'p, T> =
    dyn FnMut(&[AggNode], &AggNode, &[String]) -> Result<Option<T>> + 'p;

/// See the module docs.
pub(crate) fn take_out<T>(
    nodes: &[AggNode],
    pick: &mut Picker<'_, T>,
) -> Result<(Vec<AggNode>, Vec<T>)> {
    let mut taken = Vec::new();
    let kept = walk(nodes, &mut Vec::new(), pick, &mut taken)?;
    Ok((kept, taken))
}

fn walk<T>(
    nodes: &[AggNode],
    path: &mut Vec<String>,
    pick: &mut Picker<'_, T>,
    taken: &mut Vec<T>,
) -> Result<Vec<AggNode>> {
    let mut kept = Vec::with_capacity(nodes.len());
    for node in nodes {
        if let Some(t) = pick(nodes, node, path)? {
            taken.push(t);
            continue;
        }
        path.push(node.name.clone());
        let subs = walk(&node.subs, path, pick, taken)?;
        path.pop();
        kept.push(AggNode {
            subs,
            ..node.clone()
        });
    }
    Ok(kept)
}
