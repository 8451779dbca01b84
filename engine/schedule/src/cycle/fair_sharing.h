// The fair-sharing tournament (Kueue's fair_sharing_iterator.go): with fair
// sharing on, the order in which a cycle processes its entries. In the
// cohort tree of the first entry not yet processed, each cohort, bottom-up,
// picks among its children's winners the entry whose path child would have
// the lowest dominant resource share with the entry admitted (an entry that
// would not borrow on what it asks for first, then priority, then FIFO); the
// root's winner goes next.
#ifndef CHARTER_CYCLE_FAIR_SHARING_H_
#define CHARTER_CYCLE_FAIR_SHARING_H_

#include <vector>

#include "cycle/entry.h"
#include "cycle/snapshot.h"

namespace charter::internal::schedule {

// The next entry to process, marked in `done`, or -1 when all are done.
// Each entry's tournament levels are recomputed only when the usage on its
// path changed since they were.
int NextByFairSharing(Snapshot& snapshot, std::vector<Entry>& entries, std::vector<bool>* done);

}  // namespace charter::internal::schedule

#endif  // CHARTER_CYCLE_FAIR_SHARING_H_
