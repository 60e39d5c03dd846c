// The demo's task: make slugify() turn a title into a URL slug. The candidates fill this in.
export function slugify(title) {
  throw new Error('not implemented');
}
