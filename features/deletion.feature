@cap:deletion
Feature: Deleting entities for good, as the datahub CLI and DataHub's SDK do
  `datahub delete --hard` and DataHub's SDK (DataHubGraph.hard_delete_entity) delete an
  entity for good with POST /entities?action=delete and {"urn": ...}; for a tag, a user, a
  group, a domain or a glossary term the CLI then removes every reference to it from other
  entities with POST /entities?action=deleteReferences and {"urn": ..., "dryRun": ...}
  (DataHubGraph.delete_references_to_urn), which a dry run only counts. The SDK names the
  action in the query string alone and reads the answer's "value": the rows deleted, or the
  references found. `datahub delete --platform` (or --entity-type, --env, --query) first
  finds what to delete with a search by filter, then deletes each entity it found.

  Both actions need DELETE_ENTITY on the entity. After a deletion for good no read shows
  the entity's aspects; deleting the references to an entity leaves the entity itself, and
  the other metadata of the entities that referred to it. DataHub finds references through
  its graph index, which lags behind writes: a step that relies on the references being
  found waits until a dry run finds them.

  Background:
    Given Ann holds a personal access token

  @id:delete-01 @must @smoke
  Scenario Outline: Someone granted DELETE_ENTITY deletes a dataset for good through the <tier>
    Given the administrator has written a new dataset with a description and institutional memory
    And Ann is granted DELETE_ENTITY
    When Ann deletes the dataset for good through the <tier>
    Then the deletion is answered with the number of rows it removed
    And DataHub's SDK no longer finds the dataset or its properties

    Examples:
      | tier             |
      | metadata service |
      | frontend         |

  @id:delete-02 @must @core
  Scenario Outline: A dataset deleted for good shows none of its aspects through the <read>
    Given the administrator has written a new dataset with a description and institutional memory
    And the administrator has deleted the dataset for good
    When Ann reads the dataset through the <read>
    Then the answer shows none of the dataset's aspects

    Examples:
      | read                |
      | entity path         |
      | aspect path         |
      | v2 entity path      |
      | OpenAPI entity path |

  @id:delete-03 @must @core
  Scenario Outline: Someone granted <privilege> but not DELETE_ENTITY cannot delete a dataset for good
    Given the administrator has written a new dataset with a description and institutional memory
    And Ann is granted <privilege>
    When Ann deletes the dataset for good through the metadata service
    Then Ann is rejected as unauthorized

    Examples:
      | privilege        |
      | EDIT_ENTITY      |
      | VIEW_ENTITY_PAGE |

  @id:delete-04 @must @core
  Scenario: DELETE_ENTITY on the dataset alone lets one delete it for good
    Given the administrator has written a new dataset with a description and institutional memory
    And Ann is granted DELETE_ENTITY on the dataset alone
    When Ann deletes the dataset for good through the metadata service
    Then the deletion is answered with the number of rows it removed
    And DataHub's SDK no longer finds the dataset or its properties

  @id:delete-05 @must @core
  Scenario: DELETE_ENTITY on another dataset does not let one delete this one
    Given the administrator has written a new dataset with a description and institutional memory
    And Ann is granted DELETE_ENTITY on another dataset alone
    When Ann deletes the dataset for good through the metadata service
    Then Ann is rejected as unauthorized

  @id:delete-06 @must @core
  Scenario: Deleting a dataset no one has written removes nothing and succeeds
    Given Ann is granted DELETE_ENTITY
    When Ann deletes a dataset no one has written for good
    Then the deletion is answered with no rows removed

  @id:delete-07 @must @core
  Scenario: Deleting the references to a tag takes it from every dataset tagged with it, and leaves the rest
    Given a tag exists
    And the administrator has tagged two new datasets with the tag and with another tag
    And a dry run finds the references to the tag
    And Ann is granted DELETE_ENTITY
    When Ann deletes the references to the tag
    Then the answer counts the references to the tag on the two datasets
    And neither dataset holds the tag, and each still holds the other tag
    And the tag still exists

  @id:delete-08 @must @core
  Scenario: A dry run counts the references to a tag and changes nothing
    Given a tag exists
    And the administrator has tagged two new datasets with the tag and with another tag
    And a dry run finds the references to the tag
    And Ann is granted DELETE_ENTITY
    When Ann deletes the references to the tag in a dry run
    Then the answer counts the references to the tag on the two datasets
    And both datasets still hold the tag

  @id:delete-09 @must @core
  Scenario: Deleting the references to a user takes them from the owners of what they own, and keeps the other owners
    Given Bob is a user
    And the administrator has made Bob and Mia owners of a new dataset
    And a dry run finds the references to Bob
    And Ann is granted DELETE_ENTITY
    When Ann deletes the references to Bob
    Then the dataset's owners are Mia alone

  @id:delete-10 @must @core
  Scenario Outline: Someone granted <privilege> cannot delete the references to a tag
    Given a tag exists
    And the administrator has tagged two new datasets with the tag and with another tag
    And Ann is granted <privilege>
    When Ann deletes the references to the tag
    Then Ann is rejected as unauthorized

    Examples:
      | privilege                         |
      | EDIT_ENTITY                       |
      | DELETE_ENTITY on another tag only |

  @id:delete-11 @must @core
  Scenario: Deleting every dataset of a platform as `datahub delete --platform --hard` does removes those and nothing else
    Given the administrator has written three new datasets on a platform of the scenario's own and one on another
    And a search finds the datasets of the scenario's platform
    And Ann is granted DELETE_ENTITY
    When Ann deletes every dataset of the scenario's platform for good as the datahub CLI does
    Then DataHub's SDK finds none of the platform's datasets, and still finds the other

  @id:delete-12 @must @core
  Scenario Outline: A request without a token is refused when it <does> through the <tier>
    Given the administrator has written a new dataset with a description and institutional memory
    When someone without a token <does> through the <tier>
    Then the request is refused as unauthenticated

    Examples:
      | does                                  | tier             |
      | deletes the dataset for good          | metadata service |
      | deletes the dataset for good          | frontend         |
      | deletes the references to the dataset | metadata service |
      | deletes the references to the dataset | frontend         |

  @id:delete-13 @should @core
  Scenario Outline: A deletion <flaw> is refused as a bad request and deletes nothing
    Given the administrator has written a new dataset with a description and institutional memory
    And Ann is granted DELETE_ENTITY
    When Ann sends a deletion <flaw>
    Then the answer is a refusal of a bad request

    Examples:
      | flaw                              |
      | that names no URN                 |
      | that names a malformed URN        |
      | whose body is not JSON            |
      | of an aspect that is not a series |
