// Sorting: quicksort and a bottom-up merge sort of pseudo-random integers.
// Usage: sort [rounds]; prints a checksum of the sorted arrays.
#include <stdio.h>
#include <stdlib.h>

static unsigned long long state = 88172645463325252ULL;
static unsigned long long next(void) {
  state ^= state << 13;
  state ^= state >> 7;
  state ^= state << 17;
  return state;
}

static void quicksort(int* a, int lo, int hi) {
  while (lo < hi) {
    int pivot = a[lo + (hi - lo) / 2];
    int i = lo, j = hi;
    while (i <= j) {
      while (a[i] < pivot) i++;
      while (a[j] > pivot) j--;
      if (i <= j) {
        int t = a[i];
        a[i] = a[j];
        a[j] = t;
        i++;
        j--;
      }
    }
    if (j - lo < hi - i) {
      quicksort(a, lo, j);
      lo = i;
    } else {
      quicksort(a, i, hi);
      hi = j;
    }
  }
}

static void merge_sort(int* a, int* tmp, int n) {
  for (int width = 1; width < n; width *= 2) {
    for (int lo = 0; lo < n; lo += 2 * width) {
      int mid = lo + width < n ? lo + width : n;
      int hi = lo + 2 * width < n ? lo + 2 * width : n;
      int i = lo, j = mid, k = lo;
      while (i < mid && j < hi) tmp[k++] = a[i] <= a[j] ? a[i++] : a[j++];
      while (i < mid) tmp[k++] = a[i++];
      while (j < hi) tmp[k++] = a[j++];
    }
    for (int k = 0; k < n; k++) a[k] = tmp[k];
  }
}

int main(int argc, char** argv) {
  int rounds = argc > 1 ? atoi(argv[1]) : 40;
  const int n = 100000;
  int* a = malloc(n * sizeof(int));
  int* b = malloc(n * sizeof(int));
  int* tmp = malloc(n * sizeof(int));
  unsigned long long sum = 0;
  for (int r = 0; r < rounds; r++) {
    for (int i = 0; i < n; i++) a[i] = b[i] = (int)(next() % 1000003) - 500000;
    quicksort(a, 0, n - 1);
    merge_sort(b, tmp, n);
    for (int i = 0; i < n; i++) {
      if (a[i] != b[i] || (i > 0 && a[i - 1] > a[i])) {
        printf("unsorted at %d\n", i);
        return 1;
      }
      sum = sum * 31 + (unsigned)a[i];
    }
  }
  printf("%llu\n", sum);
  free(a);
  free(b);
  free(tmp);
  return 0;
}
