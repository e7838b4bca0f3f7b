/* A known communication pattern for hopmap's capture test (tests/core/ompi_capture.rs).
   Rank r of n sends: (r+1)*100 bytes to (r+1)%n (one message); three 4096-byte
   messages to (7r+3)%n; with "osc": an 800-byte MPI_Put to (r+2)%n and a 48-byte
   MPI_Get from (r+3)%n. Every rank joins an MPI_Allreduce and an MPI_Bcast.
   With "fail": rank 0 exits with status 7 after MPI_Finalize. */
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int r, n, osc = 0, fail = 0;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "osc")) osc = 1;
    if (!strcmp(argv[i], "fail")) fail = 1;
  }
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  char *buf = calloc(1, 1 << 16), *rb = calloc(1, 1 << 16);
  MPI_Request q[2], sq[3];
  int to = (r + 1) % n, from = (r + n - 1) % n;
  MPI_Irecv(rb, (from + 1) * 100, MPI_BYTE, from, 1, MPI_COMM_WORLD, &q[0]);
  MPI_Isend(buf, (r + 1) * 100, MPI_BYTE, to, 1, MPI_COMM_WORLD, &q[1]);
  MPI_Waitall(2, q, MPI_STATUSES_IGNORE);
  int t = (7 * r + 3) % n;
  for (int k = 0; k < 3; k++) MPI_Isend(buf, 4096, MPI_BYTE, t, 2, MPI_COMM_WORLD, &sq[k]);
  for (int s = 0; s < n; s++)
    if ((7 * s + 3) % n == r)
      for (int k = 0; k < 3; k++)
        MPI_Recv(rb, 4096, MPI_BYTE, s, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Waitall(3, sq, MPI_STATUSES_IGNORE);
  double x = r, y;
  MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  MPI_Bcast(buf, 1000, MPI_BYTE, 0, MPI_COMM_WORLD);
  if (osc) {
    MPI_Win w;
    MPI_Win_create(rb, 1 << 16, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &w);
    MPI_Win_fence(0, w);
    MPI_Put(buf, 800, MPI_BYTE, (r + 2) % n, 0, 800, MPI_BYTE, w);
    MPI_Get(buf, 48, MPI_BYTE, (r + 3) % n, 0, 48, MPI_BYTE, w);
    MPI_Win_fence(0, w);
    MPI_Win_free(&w);
  }
  MPI_Finalize();
  free(buf);
  free(rb);
  return fail && r == 0 ? 7 : 0;
}
