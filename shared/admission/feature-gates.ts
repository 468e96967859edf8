// JobSet's alpha feature gates the admission checks depend on, read from upstream's flag syntax
// (`InPlaceRestart=true,RestartJob=true`). All are off by default, as upstream's are.
import type { JobSetFeatures } from './jobset-validation.js';

const GATES: Record<string, keyof JobSetFeatures> = {
  InPlaceRestart: 'inPlaceRestart',
  RestartJob: 'restartJob',
  ElasticJobSet: 'elasticJobSet',
};

export function parseFeatureGates(text: string | undefined): JobSetFeatures {
  const features: JobSetFeatures = {};
  for (const item of (text ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '')) {
    const [name, value, ...rest] = item.split('=');
    const key = GATES[name ?? ''];
    if (key === undefined || rest.length > 0 || (value !== 'true' && value !== 'false')) {
      throw new Error(
        `feature gate ${JSON.stringify(item)}: expected <gate>=true|false, gates ${Object.keys(GATES).join(', ')}`,
      );
    }
    features[key] = value === 'true';
  }
  return features;
}
