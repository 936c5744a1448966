// The BLACS and ScaLAPACK tools libhetla_scalapack calls, by name (none of
// them is one of its own exports). Debian's libscalapack-openmpi ships no
// header; these are its C and Fortran entry points (32-bit integers).
#pragma once

extern "C" {
void Cblacs_gridinfo(int ctxt, int* nprow, int* npcol, int* myrow, int* mycol);
/// what = 10 (SGET_BLACSCONTXT) through the Fortran interface: the Fortran
/// handle of the context's own communicator, ranks row-major in the grid.
void blacs_get_(const int* ctxt, const int* what, int* val);
/// Element-wise minimum over `scope` ("All": the grid), result everywhere
/// (rdest = -1); ldia = -1: no locations.
void Cigamn2d(int ctxt, const char* scope, const char* top, int m, int n, int* a, int lda, int* ra, int* ca,
              int ldia, int rdest, int cdest);
int numroc_(const int* n, const int* nb, const int* iproc, const int* isrcproc, const int* nprocs);
}
