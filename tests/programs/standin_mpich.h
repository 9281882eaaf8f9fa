/* The MPI C interface as MPICH declares it (handles are ints: MPI_Comm, MPI_Datatype), the part
 * that tests/programs/standin_mpich.c defines and mpich_style_main.c calls. The built-in
 * handles are MPICH's values (a built-in datatype's size is in bits 8-15 of its handle). */
#ifndef ROCSYS_TESTS_STANDIN_MPICH_H
#define ROCSYS_TESTS_STANDIN_MPICH_H

#include <stdint.h>

typedef int MPI_Comm;
typedef int MPI_Datatype;
#define MPI_COMM_WORLD      ((MPI_Comm)0x44000000)
#define MPI_INT             ((MPI_Datatype)0x4c000405)
#define MPI_DOUBLE          ((MPI_Datatype)0x4c00080b)
#define STANDIN_MPICH_RANKS 4 /* MPI_COMM_WORLD's size */

int MPI_Init(int *argc, char ***argv);
int MPI_Finalize(void);
int MPI_Send(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm);
int MPI_Barrier(MPI_Comm comm);
int PMPI_Init(int *argc, char ***argv);
int PMPI_Finalize(void);
int PMPI_Send(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm);
int PMPI_Barrier(MPI_Comm comm);
int PMPI_Comm_size(MPI_Comm comm, int *size);
int PMPI_Type_size(MPI_Datatype dt, int *size);
/* The stand-in's own measure of the time inside PMPI_Barrier (the calls that returned 0), ns:
 * the part of each call a wrapper's clock readings around PMPI_Barrier enclose. */
uint64_t standin_mpich_barrier_ns(void);

#endif
