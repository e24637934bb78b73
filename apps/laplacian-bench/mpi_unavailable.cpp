// laplacian-bench without MPI: --mpi says why it has nothing to run.
#include "mpi_run.hpp"

namespace hsad::bench {
bool mpi_built() { return false; }
int run_mpi(int&, char**&, MpiRun) {
  throw Error("laplacian-bench", "--mpi", "this laplacian-bench was built without MPI",
              "install libopenmpi-dev (scripts/install-deps.sh) and build again");
}
}  // namespace hsad::bench
