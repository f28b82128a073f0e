/* Floating point: doubles and floats in loops and across calls. */
extern double ext_d(double);

double horner(const double *c, int n, double x) {
  double r = 0;
  for (int i = n - 1; i >= 0; i--) r = r * x + c[i];
  return r;
}

float dot(const float *a, const float *b, int n) {
  float s = 0;
  for (int i = 0; i < n; i++) s += a[i] * b[i];
  return s;
}

double keep_across(double a, double b) {
  double x = ext_d(a);
  double y = ext_d(b);
  return x * a + y * b + a / b;
}

int to_int(double d, float f) { return (int)d + (int)f; }
