#include <cstdio>
#include <vector>
#include <random>
#include <chrono>
#include <cstring>
#include <cstdlib>
#include "hetla/hetla.hpp"
#include "kernels/host/blas.hpp"
#include "util/blas_threads.hpp"
double now(){return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();}
int main(int argc, char** argv){
  int n = argc>1? atoi(argv[1]):4000; int nb = argc>2? atoi(argv[2]):0;
  std::mt19937 g(1); std::uniform_real_distribution<double> u(-1,1);
  std::vector<double> A((size_t)n*n), S((size_t)n*n);
  for(auto&x:A)x=u(g);
  hetla::util::blas_set_num_threads(2);
  cblas_dsyrk(CblasColMajor,CblasLower,CblasNoTrans,n,n,1.0,A.data(),n,0.0,S.data(),n);
  for(int i=0;i<n;i++) S[(size_t)i*n+i]+=n;
  for (int r=0;r<3;r++){
  auto W=S; double t=now(); int info=LAPACKE_dpotrf_work(LAPACK_COL_MAJOR,'L',n,W.data(),n); t=now()-t;
  printf("lapack: info %d %.1f GF\n",info,(double)n*n*n/3/t/1e9);
  auto H=S; t=now(); auto hinfo=hetla::potrf(hetla::Uplo::Lower,n,H.data(),n,{nb}); t=now()-t;
  double md=0; for(int j=0;j<n;j++) for(int i=j;i<n;i++) md=std::max(md,std::abs(H[i+(size_t)j*n]-W[i+(size_t)j*n]));
  printf("hetla: info %ld %.1f GF maxdiff %g\n",(long)hinfo,(double)n*n*n/3/t/1e9, md);
  }
}
