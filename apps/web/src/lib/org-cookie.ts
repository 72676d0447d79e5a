/** Makes the whole UI show this organization (the server context reads the cookie). */
export function openOrganization(slug: string) {
  // biome-ignore lint/suspicious/noDocumentCookie: the Cookie Store API is missing from Firefox and Safari
  document.cookie = `bb_org=${encodeURIComponent(slug)}; path=/; samesite=lax; max-age=31536000`;
}
