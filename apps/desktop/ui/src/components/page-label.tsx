// "第 7 页" above a line of a transcript where the teacher moved to that page of the material.
import { t } from '../i18n.ts';

/** The page label of a line (see page-starts.ts for where one goes). */
export function PageLabel({ page }: { page: number }) {
  return (
    <span class="page-label" data-page={page}>
      {t('pageLabel', { page })}
    </span>
  );
}
