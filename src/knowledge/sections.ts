/**
 * Manual sections, the unit every manual reader (Markdown, HTML, PDF, Word) produces before chunking: a heading path
 * and the text under it.
 */

/** Separator between heading levels in {@link ManualSection.heading}. */
export const HEADING_SEPARATOR = ' > ';

/** A run of manual text under one heading path. */
export interface ManualSection {
  /** Heading path such as `セキュリティ > 二段階認証`; empty for text before the first heading or without headings. */
  heading: string;
  text: string;
}

/**
 * Collects sections as a reader walks a document: a heading closes the section before it and opens the next one at
 * its level (1–6, as `#`–`######` in Markdown; HTML and Word give 1–3); text is added in pieces. A section without text (a chapter heading directly
 * followed by a section heading) is dropped.
 */
export class SectionCollector {
  readonly #sections: ManualSection[] = [];
  readonly #path: string[] = [];
  #pieces: string[] = [];

  /** Closes the current section and opens one under `title` at `level`; a skipped level stays an empty slot. */
  heading(level: number, title: string): void {
    this.#flush();
    this.#path.length = level - 1;
    // Keep a skipped level (`#` then `###`) as an empty slot that the heading path leaves out, so a later `##` still
    // replaces the right level.
    for (let i = 0; i < level - 1; i++) this.#path[i] ??= '';
    this.#path[level - 1] = title;
  }

  /** The title of the open heading at `level` (empty when there is none). */
  titleAt(level: number): string {
    return this.#path[level - 1] ?? '';
  }

  /** Changes the title of the open heading at `level` without closing its section (a heading wrapped onto two lines). */
  retitle(level: number, title: string): void {
    this.#path[level - 1] = title;
  }

  /** Adds text to the open section; pieces are joined as they are, so a caller adds its own line breaks. */
  add(piece: string): void {
    this.#pieces.push(piece);
  }

  /** Whether the open section has text yet. */
  get hasText(): boolean {
    return this.#pieces.length > 0;
  }

  /** Closes the open section and returns every section, in document order. */
  finish(): ManualSection[] {
    this.#flush();
    return this.#sections;
  }

  #flush(): void {
    // Joined once here: reading or extending one growing string line by line flattens it every time.
    const text = this.#pieces.join('').trim();
    if (text) this.#sections.push({ heading: this.#path.filter(Boolean).join(HEADING_SEPARATOR), text });
    this.#pieces = [];
  }
}
