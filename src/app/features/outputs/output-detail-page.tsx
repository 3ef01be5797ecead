/** /applications/:appId/outputs/:outputId (spec section 2, output detail). Filled in below. */
export function OutputDetailPage() {
  return <section className="page output-detail" />;
}
