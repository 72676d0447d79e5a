/** Download links for what a page shows: "Export JSON · CSV" (and any further formats). */
export function ExportLinks({ links }: { links: readonly { label: string; href: string }[] }) {
  return (
    <span className="flex shrink-0 items-center gap-2 whitespace-nowrap text-sm">
      <span className="text-slate-500">Export</span>
      {links.map((l) => (
        <a key={l.href} className="text-sky-700 hover:underline" href={l.href} download>
          {l.label}
        </a>
      ))}
    </span>
  );
}

/** JSON and CSV of an export route taking `format=`. */
export function exportFormats(base: string, extra = ""): { label: string; href: string }[] {
  const sep = base.includes("?") ? "&" : "?";
  return [
    { label: "JSON", href: `${base}${sep}format=json${extra}` },
    { label: "CSV", href: `${base}${sep}format=csv${extra}` },
  ];
}
