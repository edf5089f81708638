/** A value made on first use and kept for the life of the Lambda instance (its cold start). */
export function memo<T>(make: () => T): () => T {
  let made = false;
  let value: T;
  return () => {
    if (!made) {
      value = make();
      made = true;
    }
    return value;
  };
}
