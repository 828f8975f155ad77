// A header with an error on line 3.
float brokenScale() {
  return undefined_scale_factor;
}
